"""Question understanding: the typed tracker query, the reader that fills it from a question with the tracker's
own values, the follow-up edits of the conversation's last query, and the vocabulary read from the data. Pure."""
