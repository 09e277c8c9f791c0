"""Follow-up questions made standalone for retrieval. Pure: no I/O.

"who is assigned to it?" retrieves nothing useful on its own. Offline, the previous user turn's key
terms are joined to the new question; with an LLM, ``condensation_messages`` asks it to rewrite the
question as a standalone search query (the service makes that one call).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.rag import terms

MAX_CARRIED_TERMS = 12
MAX_TRANSCRIPT_CHARS = 4_000  # the condensation call only needs the recent turns

CONDENSE_PROMPT = (
    "Rewrite the user's last question as one standalone search query for a team's task tracker "
    "(tasks, sprints, projects, comments, documents). Resolve pronouns such as 'it' or 'that task' from "
    "the conversation. Keep names, ids and technical words. Reply with the query only, in the language "
    "of the last question, without quotes or explanation."
)


def standalone_query(previous_user_turns: Sequence[str], question: str) -> str:
    """The question plus the key terms of the previous user turn it does not already contain."""
    question = question.strip()
    if not previous_user_turns:
        return question
    have = {terms.stem(t) for t in terms.key_terms(question)}
    carried = [t for t in terms.key_terms(previous_user_turns[-1]) if terms.stem(t) not in have]
    return " ".join([question, *carried[:MAX_CARRIED_TERMS]]) if carried else question


def condensation_messages(history: Sequence[Mapping[str, str]], question: str,
                          max_chars: int = MAX_TRANSCRIPT_CHARS) -> list[dict[str, str]]:
    """Chat-completions messages asking for a standalone query; the newest turns win the budget."""
    lines: list[str] = []
    used = 0
    for turn in reversed(history):
        line = f"{'User' if turn['role'] == 'user' else 'Assistant'}: {' '.join(turn['content'].split())}"
        if used + len(line) > max_chars:
            break
        lines.append(line)
        used += len(line)
    transcript = "\n".join(reversed(lines)) or "(no earlier turns)"
    return [
        {"role": "system", "content": CONDENSE_PROMPT},
        {"role": "user", "content": f"Conversation:\n{transcript}\n\nLast question: {question.strip()}"},
    ]
