"""What the bot says, and splitting an answer at Telegram's message limit. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence

# Telegram's limit on one message's text, counted in UTF-16 code units (an emoji counts two).
TELEGRAM_LIMIT = 4096

THINKING = "thinking…"
HELP = (
    "Ask me about your team's tasks, sprints, projects and documents; I answer from what you may see.\n\n"
    "/new: start a new conversation (I forget the previous one's context)\n"
    "/scope: show what I search\n"
    "/scope all: search every project you may see\n"
    "/scope none: only documents outside any project\n"
    "/scope <project id>: only that project\n"
    "/help: this message"
)
UNKNOWN_USER = ("Sorry, I don't know you yet: your Telegram account is not linked to an employee. "
                "Please ask an administrator to add your Telegram id ({telegram_id}).")
PRIVATE_ONLY = "Sorry, I only answer in a private chat, so nobody else reads what you may see."
BUSY = "Sorry, I'm busy right now. Please try again in a moment."
UNAVAILABLE = "Sorry, I can't reach the knowledge base right now. Please try again later."
FAILED = "Sorry, something went wrong while answering. Please try again."
MISCONFIGURED = "Sorry, I'm not set up correctly. Please tell an administrator."
TOO_LONG = "Sorry, that message is too long: please keep it under {limit} characters."
BAD_SCOPE = "Sorry, I can't use scope {scope!r}: {detail}. Try /scope all, /scope none or /scope <project id>."
SCOPE_USAGE = "Use /scope all, /scope none or /scope <project id>."
LLM_FALLBACK = "(The language model was unavailable, so this answer quotes the records directly.)"


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_scope(arg: str) -> str | None:
    """``all``, ``none`` or a positive project id, as our API spells them; None if it is none of those."""
    value = arg.strip().lower()
    if value in ("all", "none"):
        return value
    if value.isascii() and value.isdigit() and int(value) > 0:
        return str(int(value))
    return None


def scope_name(scope: str | None, label: str | None) -> str:
    if label:
        return label
    return {None: "All projects (default)", "all": "All projects", "none": "No project"}.get(scope, f"project {scope}")


def format_answer(answer: str, citations: Sequence[str], llm_error: str | None = None) -> str:
    parts = [answer.strip() or "I don't know."]
    if citations:
        parts.append("Sources: " + ", ".join(citations))
    if llm_error:
        parts.append(LLM_FALLBACK)
    return "\n\n".join(parts)


def preview(text: str, limit: int = TELEGRAM_LIMIT) -> str:
    """The streamed text so far, fitted into one message (its tail is cut, marked with …)."""
    if utf16_len(text) <= limit:
        return text
    return _fit(text, limit - 1) + "…"


def split_message(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Parts of at most ``limit`` UTF-16 units, cut at a paragraph, line or word break when one is near."""
    parts: list[str] = []
    rest = text
    while utf16_len(rest) > limit:
        head = _fit(rest, limit)
        cut = _break_point(head)
        parts.append(head[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest or not parts:
        parts.append(rest)
    return parts


def _fit(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` UTF-16 units (never half a surrogate pair)."""
    units = 0
    for i, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text


def _break_point(head: str) -> int:
    # Prefer a break in the last quarter of the part, so no part is needlessly short.
    floor = len(head) * 3 // 4
    for sep in ("\n\n", "\n", " "):
        at = head.rfind(sep, floor)
        if at > 0:
            return at + len(sep)
    return len(head)
