"""Clean a model's answer of anchors it may not cite, and of the claims that rested on them. Pure: no I/O.

An anchor is citable when it names something the model was given this turn (a retrieved chunk, an
entity looked up, a tool result): everything else is invented, or names what the asker may not see.
Removing such an anchor removes the clause that rested on it — "task [TASK #107] is blocked; see
[DOC #5] and [DOC #7]." keeps "task [TASK #107] is blocked." when only the task may be cited — and a
sentence left with no anchor at all, though it had some, is dropped: its support is gone. Sentences
that never cited anything (a greeting, "I don't know") stay. ``grounded`` says whether any citation
survived; an answer whose every citation went is not an answer (the service falls back to the
extractive one and reports ``llm_error: "ungrounded"``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

ANCHOR = r"\[(?:TASK|SPRINT|PROJECT|DOC) #\d+\]"
_GROUP = re.compile(rf"{ANCHOR}(?:\s*(?:,|&|\band\b|\bor\b|\by\b|\bo\b|\be\b)?\s*{ANCHOR})*", re.IGNORECASE)
_ONE = re.compile(ANCHOR)
# A clause ends at ";" or where a comma/"and" follows an anchor group (the claim before it is complete).
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)|\n")
_LEFT_HANGING = re.compile(r"(?:\s*(?:,|;|:|\band\b|\bor\b|\by\b|\bo\b|\bsee\b|\bver\b|\bcf\.?))+\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Cleaned:
    text: str
    cited: list[str]  # the citable anchors left, in order of first citation
    removed: list[str]  # the anchors taken out, in order
    grounded: bool  # at least one citation survived (or none was ever made)


def clean(answer: str, citable: Collection[str]) -> Cleaned:
    known = set(citable)
    removed: list[str] = []
    had_anchor = bool(_ONE.search(answer))
    lines = [_clean_line(line, known, removed) for line in answer.split("\n")]
    text = _tidy("\n".join(line for line in lines if line is not None))
    cited = list(dict.fromkeys(a for a in _ONE.findall(text) if a in known))
    return Cleaned(text, cited, removed, grounded=bool(cited) or not had_anchor)


def _clean_line(line: str, known: set[str], removed: list[str]) -> str | None:
    if not _ONE.search(line):
        return line
    kept = []
    for sentence in _SENTENCE.findall(line):
        result = _clean_sentence(sentence, known, removed)
        if result is not None:
            kept.append(result)
    text = " ".join(s.strip() for s in kept if s.strip())
    if not text:
        return None  # a bullet or line whose every claim lost its support
    return re.match(r"\s*(?:[-*•]\s+|\d+[.)]\s+)?", line).group(0) + text if not re.match(r"\s*(?:[-*•]|\d+[.)])", text) \
        else text


def _clean_sentence(sentence: str, known: set[str], removed: list[str]) -> str | None:
    anchors = _ONE.findall(sentence)
    if not anchors or all(a in known for a in anchors):
        return sentence
    end = re.search(r"[.!?]*\s*$", sentence).group(0)
    body = sentence[: len(sentence) - len(end)] if end else sentence
    clauses = _clauses(body)
    kept = []
    for clause in clauses:
        cites = _ONE.findall(clause)
        if cites and not any(a in known for a in cites):
            removed.extend(cites)
            continue
        if cites:
            clause = _GROUP.sub(lambda m: _keep_known(m.group(0), known, removed), clause)
        kept.append(clause)
    text = "".join(kept)
    text = _LEFT_HANGING.sub("", text)
    text = re.sub(r"^\s*(?:(?:,|;|\band\b|\by\b)\s*)+", "", text, flags=re.IGNORECASE)
    if clauses and kept and kept[0] is not clauses[0] and sentence[:1].isupper():
        text = text[:1].upper() + text[1:]  # the sentence's first clause went: its successor starts it
    if not any(a in known for a in _ONE.findall(text)) or not re.search(r"\w", _ONE.sub("", text)):
        removed.extend(a for a in _ONE.findall(text) if a not in removed)
        return None  # it cited, and what it cited is gone: no support left
    return text.rstrip() + (end.strip() or "")


def _clauses(body: str) -> list[str]:
    """Split at ";" and after each anchor group followed by a comma or a conjunction."""
    pieces, start = [], 0
    boundary = rf"(?:;|(?<=\])\s*,(?:\s*(?:and|y)\b)?(?!\s*{ANCHOR})|(?<=\])\s+(?:and|y)\b(?!\s*{ANCHOR}))"
    for match in re.finditer(boundary, body, re.IGNORECASE):
        pieces.append(body[start:match.start()])
        start = match.start()
    pieces.append(body[start:])
    return [p for p in pieces if p]


def _keep_known(group: str, known: set[str], removed: list[str]) -> str:
    anchors = _ONE.findall(group)
    keep = [a for a in anchors if a in known]
    removed.extend(a for a in anchors if a not in known)
    if len(keep) == len(anchors):
        return group
    return ", ".join(keep[:-1]) + (" and " if len(keep) > 1 else "") + keep[-1] if keep else ""


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+([.,;:!?)])", r"\1", text)  # "fixed [TASK #9] ." -> "fixed [TASK #9]."
    text = re.sub(r"\(\s*\)", "", text)
    text = re.sub(r"([.,;:])(?:\s*[,;:])+", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
