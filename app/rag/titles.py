"""Chat clients' title requests (Open WebUI, LibreChat) and a short title for them. Pure: no I/O.

After the first answer, Open WebUI sends "### Task: Generate a concise, 3-5 word title with an emoji
summarizing the chat history. … ### Output: JSON format: { "title": … } … <chat_history>USER: …</chat_history>"
(older versions: "Create a concise, 3-5 word title …"), and LibreChat "Provide a concise, 5-word-or-less
title for the conversation, using title case conventions. Only return the title itself. Conversation: …"
(or "Please generate a concise, 5-word-or-less title …", or "Analyze this conversation and provide: 1. The
detected language … 2. A concise title …"). Answered as a question, they get "I don't know", which then
becomes the conversation's name. They are not questions about the records: the title is made from the
conversation's own first question, and nothing is searched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from app.rag import terms

MAX_TITLE_WORDS = 5
INSTRUCTION_CHARS = 2_000  # the clients put the instruction first: only this much is read to recognise one
EMOJI = "📋"  # the tracker's: Open WebUI asks for one

_REQUESTS = (
    re.compile(r"(?:generate|create) a concise,? 3-5 word (?:title|phrase)", re.IGNORECASE),  # Open WebUI
    re.compile(r"concise,? 5-word-or-less title", re.IGNORECASE),  # LibreChat
    re.compile(r"analyze this conversation and provide:.*concise title", re.IGNORECASE | re.DOTALL),  # LibreChat
    re.compile(r"generate a concise title \(max \d+ characters\) for a conversation", re.IGNORECASE),
)
_HISTORY = re.compile(r"<chat_history>(?P<body>.*?)</chat_history>", re.IGNORECASE | re.DOTALL)
_CONVERSATION = re.compile(r"(?:^|\n)\s*conversation:\s*\n(?P<body>.*)\Z", re.IGNORECASE | re.DOTALL)
_USER_LINE = re.compile(r"^\s*(?:user|human)\s*:\s*(?P<text>.+)$", re.IGNORECASE | re.MULTILINE)


def is_title_request(text: str) -> bool:
    return any(pattern.search(text) for pattern in _REQUESTS)


def title_answer(request: str, earlier_user_turns: Sequence[str]) -> str:
    """The reply a client's title request wants: JSON {"title": …} when it asks for JSON (Open WebUI),
    else the bare title. Made from the first user question the request quotes, or the conversation's."""
    quoted = _quoted_user_turns(request)
    source = next((t for t in [*quoted, *earlier_user_turns] if t.strip() and not is_title_request(t)), "")
    title = title_of(source, wants_emoji="emoji" in request.lower())
    return json.dumps({"title": title}, ensure_ascii=False) if "json" in request.lower() else title


def title_of(question: str, wants_emoji: bool = False) -> str:
    """A few key words of the question, each capitalised ("which project has the most overdue work?" →
    "Project Overdue Work"; "¿en qué ando?" → "En Qué Ando"); "Chat" when it has no words."""
    words = terms.key_terms(question)[:MAX_TITLE_WORDS]
    if len(words) < 2:  # "¿en qué ando?": its few words say more than its one key term
        words = terms.words(question)[:MAX_TITLE_WORDS]
    title = " ".join(w[:1].upper() + w[1:] for w in words) or "Chat"
    return f"{EMOJI} {title}" if wants_emoji else title


def _quoted_user_turns(request: str) -> list[str]:
    match = _HISTORY.search(request) or _CONVERSATION.search(request)
    if match is None:
        return []
    return [m.group("text").strip() for m in _USER_LINE.finditer(match.group("body"))]
