"""Jira's two text formats turned into the plain text a chunk carries: wiki markup (Server/Data Center,
REST v2) and the Atlassian Document Format (Cloud, REST v3). Pure functions, no I/O.

Why our own: jira2markdown (PyPI, kept) turns wiki markup into *Markdown* (``**bold**``, ``[t](url)``,
code fences), which a chunk would then carry as noise or need a second converter to strip; no kept
package turns ADF into plain text. Both formats are small enough to read here, and what a search needs is
the words: links keep their text and URL, code keeps its lines, images keep their file name.
"""

from __future__ import annotations

import re
from typing import Any

# {code:java}...{code}, {noformat}...{noformat}: the body kept verbatim (it is what someone searches for).
_BLOCK = re.compile(r"\{(code|noformat)(?::[^}]*)?\}\n?(.*?)\n?\{\1\}", re.S)
_QUOTE = re.compile(r"\{quote\}\n?(.*?)\n?\{quote\}", re.S)
_PANEL = re.compile(r"\{(panel|color)(?::[^}]*)?\}(.*?)\{\1\}", re.S)
_HEADING = re.compile(r"^h[1-6]\.\s*", re.M)
_LIST = re.compile(r"^([*#-]+)\s+", re.M)
_BQ_LINE = re.compile(r"^bq\.\s*", re.M)
_LINK = re.compile(r"\[([^\[\]|]*)\|([^\[\]]*)\]")  # [text|url]
_BARE_LINK = re.compile(r"\[((?:https?|mailto|ftp):[^\[\]|]+)\]")  # [http://…]
_MENTION = re.compile(r"\[~(?:accountid:)?([^\]]+)\]")  # [~user] / [~accountid:5b10…]
_IMAGE = re.compile(r"!([^!\s|]+?)(?:\|[^!]*)?!")  # !image.png! / !image.png|thumbnail!
_MONO = re.compile(r"\{\{(.+?)\}\}")
# *bold*, _italic_, -strike-, +under+, ^sup^, ~sub~, ??cite??: the markers only where they wrap a word.
_EMPHASIS = re.compile(r"(?<![\w*_+^~?-])([*_+^~]|\?\?|-)(?=\S)(.+?)(?<=\S)\1(?![\w*_+^~?-])")
_TABLE_BARS = re.compile(r"\|\|?")
_BLANKS = re.compile(r"\n{3,}")
_PLACEHOLDER = "\x00{}\x00"


def wiki_to_text(markup: str | None) -> str:
    """Jira wiki markup as plain text: code blocks verbatim, ``[text|url]`` as "text (url)", headings, list
    bullets, quotes, emphasis and ``{{mono}}`` markers dropped, ``!image.png!`` as "image.png",
    ``[~user]`` as "@user"."""
    if not markup:
        return ""
    blocks: list[str] = []

    def keep(match: re.Match) -> str:  # code is not markup: shield it from the rules below
        blocks.append(match.group(2).strip("\n"))
        return _PLACEHOLDER.format(len(blocks) - 1)

    text = _BLOCK.sub(keep, markup.replace("\r\n", "\n"))
    text = _MONO.sub(lambda m: (blocks.append(m.group(1)), _PLACEHOLDER.format(len(blocks) - 1))[1], text)
    text = _QUOTE.sub(lambda m: m.group(1), text)
    text = _PANEL.sub(lambda m: m.group(2), text)
    text = _HEADING.sub("", text)
    text = _BQ_LINE.sub("", text)
    text = _LIST.sub(lambda m: "- " if m.group(1)[-1] in "*-" else "1. ", text)
    text = _MENTION.sub(lambda m: "@" + m.group(1), text)
    text = _LINK.sub(lambda m: _link_text(m.group(1), m.group(2)), text)
    text = _BARE_LINK.sub(lambda m: m.group(1), text)
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = _EMPHASIS.sub(lambda m: m.group(2), text)
    text = "\n".join(_table_row(line) for line in text.split("\n"))
    text = re.sub("\x00(\\d+)\x00", lambda m: blocks[int(m.group(1))], text)
    return _BLANKS.sub("\n\n", text).strip()


def _link_text(text: str, url: str) -> str:
    text, url = text.strip(), url.strip()
    if url.startswith("~"):
        url = "@" + url[1:]
    return f"{text} ({url})" if text and text != url else url


def _table_row(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
        cells = [c.strip() for c in _TABLE_BARS.split(stripped.strip("|"))]
        return " | ".join(c for c in cells if c)
    return line


# --- Atlassian Document Format ------------------------------------------------------------------

_BLOCK_NODES = {"paragraph", "heading", "codeBlock", "blockquote", "rule", "panel", "mediaSingle",
                "mediaGroup", "table", "expand", "nestedExpand", "decisionList", "taskList"}


def adf_to_text(doc: Any) -> str:
    """An ADF document (or a plain string, as some fields and old comments are) as plain text: paragraphs
    and headings one per line block, list items as "- ", table rows as "a | b", mentions as "@Name", links'
    text with the URL in brackets when it differs, media by file name, unknown nodes by their text."""
    if doc is None:
        return ""
    if isinstance(doc, str):
        return doc.strip()
    lines: list[str] = []
    _adf_block(doc, lines, "")
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def _adf_block(node: Any, lines: list[str], indent: str) -> None:
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    children = node.get("content") or []
    if kind in ("bulletList", "orderedList"):
        for n, item in enumerate(children, 1):
            bullet = "- " if kind == "bulletList" else f"{n}. "
            inner: list[str] = []
            for child in item.get("content") or []:
                _adf_block(child, inner, indent + "  ")
            inner = [line for line in inner if line.strip()] or [""]
            lines.append(indent + bullet + inner[0].lstrip())
            lines.extend(inner[1:])
        return
    if kind == "tableRow":
        lines.append(" | ".join(" ".join(_adf_inline(c) for c in cell.get("content") or []).strip()
                                for cell in children))
        return
    if kind == "codeBlock":
        lines.append("".join(_adf_inline(c) for c in children))
        lines.append("")
        return
    if kind == "rule":
        lines.append("")
        return
    if kind in ("paragraph", "heading") or any(c.get("type") == "text" for c in children if isinstance(c, dict)):
        lines.append(indent + "".join(_adf_inline(c) for c in children))
        if kind in _BLOCK_NODES:
            lines.append("")
        return
    if kind in ("media", "mediaInline"):
        lines.append(indent + _media_name(node))
        return
    for child in children:  # doc, blockquote, panel, table, expand, layout…: their blocks in order
        _adf_block(child, lines, indent)


def _adf_inline(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    kind, attrs = node.get("type"), node.get("attrs") or {}
    if kind == "text":
        text = node.get("text", "")
        href = next((m.get("attrs", {}).get("href") for m in node.get("marks") or [] if m.get("type") == "link"), None)
        return f"{text} ({href})" if href and href != text else text
    if kind == "hardBreak":
        return "\n"
    if kind == "mention":
        name = attrs.get("text") or attrs.get("id") or ""
        return name if name.startswith("@") else "@" + name
    if kind in ("emoji",):
        return attrs.get("text") or attrs.get("shortName") or ""
    if kind in ("inlineCard", "blockCard"):
        return attrs.get("url") or ""
    if kind == "date":
        return str(attrs.get("timestamp") or "")
    if kind == "status":
        return attrs.get("text") or ""
    if kind in ("media", "mediaInline"):
        return _media_name(node)
    return "".join(_adf_inline(c) for c in node.get("content") or [])


def _media_name(node: dict) -> str:
    attrs = node.get("attrs") or {}
    return attrs.get("alt") or attrs.get("filename") or attrs.get("name") or ""
