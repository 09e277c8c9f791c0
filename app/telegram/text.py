"""Formatting what the bot says (the words are in ``catalogue``) and splitting it at Telegram's message
limit. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from app.telegram.catalogue import Texts

# Telegram's limit on one message's text, counted in UTF-16 code units (an emoji counts two).
TELEGRAM_LIMIT = 4096


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def scope_name(texts: Texts, scope: str | None, label: str | None) -> str:
    """All, none and the default in the user's language; a project by the name our API gave it."""
    fixed = {None: texts.all_default, "all": texts.all_projects, "none": texts.no_project}
    if scope in fixed:
        return fixed[scope]
    return label or texts.project_n.format(id=scope)


def format_answer(texts: Texts, answer: str, citations: Sequence[str], llm_error: str | None = None) -> str:
    parts = [answer.strip() or texts.dont_know]
    if citations:
        parts.append(texts.sources.format(citations=", ".join(citations)))
    if llm_error:
        parts.append(texts.llm_fallback)
    return "\n\n".join(parts)


def project_lines(projects: Sequence[dict]) -> str:
    """One line per project: its name and the command that chooses it."""
    return "\n".join(f"• {p['name']}: /scope {p['project_id']}" for p in projects)


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
