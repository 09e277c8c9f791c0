"""Answers composed from the records: a tracker query's list, count, sum, ranking or field, each saying first, in
the asker's language, the query it ran. Pure."""
