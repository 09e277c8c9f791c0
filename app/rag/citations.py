"""Clean a model's answer of anchors it may not cite, and of the claims that rested on them. Pure: no I/O.

An anchor is citable when it names something the model was given this turn (a retrieved chunk, an
entity looked up, a tool result): everything else is invented, or names what the asker may not see.
Removing such an anchor removes the clause that rested on it — "task [TASK #107] is blocked; see
[DOC #5] and [DOC #7]." keeps "task [TASK #107] is blocked." when only the task may be cited — and a
sentence left with no anchor at all, though it had some, is dropped: its support is gone. Sentences
that never cited anything (a greeting, "I don't know") stay. ``grounded`` says whether any citation
survived; an answer whose every citation went is not an answer (the service falls back to the
extractive one and reports ``llm_error: "ungrounded"``).

That trimming is for anchors the model was shown but may not cite (an earlier turn's, one a chunk's text
mentions). An anchor that appears nowhere in what the model was given is invented (``invented``): the whole
answer is then ungrounded, not trimmed — a model that makes one anchor up made up the claims beside it too.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

ANCHOR = r"\[(?:TASK|SPRINT|PROJECT|DOC) #\d+\]"
# Possessive whitespace (\s*+) throughout: the model's reply is untrusted text, and an ambiguous split of a
# long whitespace run between two \s* made these patterns quadratic (40,000 characters held the event loop
# for minutes).
_GROUP = re.compile(rf"{ANCHOR}(?:\s*+(?:(?:,|&|\band\b|\bor\b|\by\b|\bo\b|\be\b)\s*+)?{ANCHOR})*", re.IGNORECASE)
_ONE = re.compile(ANCHOR)
_TYPES = "TASK|SPRINT|PROJECT|DOC"
# An anchor as a model may spell it: any case, spaces, leading zeros, several ids in one bracket
# ("[task #7]", "[ TASK  #007 ]", "[TASK #1, TASK #5]", "[TASK #1; #2]"). Each is rewritten as the
# anchors it names before anything is checked, so no spelling escapes the check.
_LOOSE = re.compile(rf"\[\s*+(?:{_TYPES})\s*+#\s*+\d{{1,19}}(?:\s*+[,;]\s*+(?:(?:{_TYPES})\s*+)?#\s*+\d{{1,19}})*\s*+\]",
                    re.IGNORECASE)
_LOOSE_PART = re.compile(rf"(?:({_TYPES})\s*)?#\s*(\d+)", re.IGNORECASE)
# A sentence ends at . ! ? followed by a space (or the end) and a capital, a digit or an opening mark,
# or right after a citation; not inside "1.2", after an abbreviation ("Dr.", "e.g.") or before a
# lower-case word.
_END = re.compile(r"[.!?]++(?=\s|$)")
_NEXT = re.compile(r"\s*+(\S?)")
_ABBREVIATIONS = frozenset("dr mr mrs ms mx jr sr sra srta dra st vs etc approx no nº fig e.g i.e p.ej ej cf".split())
_LIST_MARK = re.compile(r"\s*+(?:[-*•]\s+|\d+[.)]\s+)?")
_HANGING = frozenset(("and", "or", "y", "o", "see", "ver", "cf", "cf."))


@dataclass(frozen=True)
class Cleaned:
    text: str
    cited: list[str]  # the citable anchors left, in order of first citation
    removed: list[str]  # the anchors taken out, in order
    grounded: bool  # at least one citation survived (or none was ever made)


def clean(answer: str, citable: Collection[str]) -> Cleaned:
    known = set(citable)
    removed: list[str] = []
    answer = _LOOSE.sub(_canonical, answer)
    had_anchor = bool(_ONE.search(answer))
    lines = [_clean_line(line, known, removed) for line in answer.split("\n")]
    text = _tidy("\n".join(line for line in lines if line is not None))
    cited = list(dict.fromkeys(a for a in _ONE.findall(text) if a in known))
    return Cleaned(text, cited, removed, grounded=bool(cited) or not had_anchor)


def anchors_in(text: str) -> list[str]:
    """Every anchor the text cites, however spelled ("[task #7]", "[TASK #1, #5]"), canonical, in order, once."""
    return list(dict.fromkeys(_ONE.findall(_LOOSE.sub(_canonical, text))))


def invented(answer: str, given: Collection[str]) -> list[str]:
    """The anchors the answer cites that name nothing it was given (any spelling): made up."""
    known = set(given)
    return [a for a in anchors_in(answer) if a not in known]


def _canonical(match: re.Match[str]) -> str:
    """The anchors a loosely spelled one names, as every chunk writes them ("[TASK #7]")."""
    anchors, kind = [], ""
    for part in _LOOSE_PART.finditer(match.group(0)):
        kind = (part.group(1) or kind).upper()
        anchors.append(f"[{kind} #{int(part.group(2))}]")
    return " ".join(anchors)


def _clean_line(line: str, known: set[str], removed: list[str]) -> str | None:
    if not _ONE.search(line):
        return line
    mark = _LIST_MARK.match(line).group(0)  # a bullet or "2. " stays only with what follows it
    kept = []
    for sentence in _sentences(line[len(mark):]):
        result = _clean_sentence(sentence, known, removed)
        if result is not None:
            kept.append(result)
    text = " ".join(s.strip() for s in kept if s.strip())
    return mark + text if text else None  # None: a bullet or line whose every claim lost its support


def _sentences(line: str) -> list[str]:
    pieces, start = [], 0
    for end in _END.finditer(line):
        if line[end.start() - 1:end.start()] != "]":  # after a citation, a period always ends the claim
            word = line[max(start, end.start() - 8):end.start()].rsplit(None, 1)
            if word and word[-1].lower().lstrip("(\"'") in _ABBREVIATIONS:
                continue
            following = _NEXT.match(line, end.end()).group(1)
            if following and not (following.isupper() or following.isdigit() or following in "\"'¿¡([*-•"):
                continue
        pieces.append(line[start:end.end()])
        start = end.end()
    if start < len(line):
        pieces.append(line[start:])
    return pieces


def _clean_sentence(sentence: str, known: set[str], removed: list[str]) -> str | None:
    anchors = _ONE.findall(sentence)
    if not anchors or all(a in known for a in anchors):
        return sentence
    stripped = sentence.rstrip()
    body = stripped.rstrip(".!?")
    end = stripped[len(body):]
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
    text = _strip_hanging(text)
    text = re.sub(r"^\s*(?:(?:,|;|\band\b|\by\b)\s*)+", "", text, flags=re.IGNORECASE)
    if clauses and kept and kept[0] is not clauses[0] and sentence[:1].isupper():
        text = text[:1].upper() + text[1:]  # the sentence's first clause went: its successor starts it
    if not any(a in known for a in _ONE.findall(text)) or not re.search(r"\w", _ONE.sub("", text)):
        removed.extend(a for a in _ONE.findall(text) if a not in removed)
        return None  # it cited, and what it cited is gone: no support left
    return text.rstrip() + end


def _clauses(body: str) -> list[str]:
    """Split at ";", after each anchor group followed by a comma or a conjunction, and before an anchor
    that starts a clause after a comma ("[TASK #1] is done, [TASK #5] is not")."""
    pieces, start = [], 0
    boundary = (rf"(?:;|(?<=\])\s*,(?:\s*(?:and|y)\b)?(?!\s*{ANCHOR})|(?<=\])\s+(?:and|y)\b(?!\s*{ANCHOR})"
                rf"|(?<!\]),(?:\s*+(?:and|but|y|pero)\b)?(?=\s*+{ANCHOR}))")  # ", [TASK #5] is not": its own claim
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


def _strip_hanging(text: str) -> str:
    """Without what a removed citation left dangling at the end (", and", "; see", " y"); it walks back
    from the end, so it is linear in the text however much dangles."""
    end = len(text)
    while True:
        while end and text[end - 1].isspace():
            end -= 1
        if end and text[end - 1] in ",;:":
            end -= 1
            continue
        start = end
        while start and (text[start - 1].isalpha() or text[start - 1] == "."):
            start -= 1
        if text[start:end].lower() in _HANGING and (start == 0 or not text[start - 1].isalnum()):
            end = start
            continue
        return text[:end]


def _tidy(text: str) -> str:
    text = re.sub(r"\((?:\s|,|;|see|also|ver|cf\.?|tambi[eé]n)*+\)", "", text, flags=re.IGNORECASE)  # "(see )"
    text = re.sub(r"(?<![ \t])[ \t]++([.,;:!?)])", r"\1", text)  # "fixed [TASK #9] ." -> "fixed [TASK #9]."
    text = re.sub(r"([.,;:])(?:\s*+[,;:])+", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
