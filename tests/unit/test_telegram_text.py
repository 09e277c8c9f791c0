"""Pure pieces of the Telegram bot: splitting at the message limit, scopes, the durable chat map."""

from __future__ import annotations

import pytest

from app.telegram.state import ChatState, ChatStore
from app.telegram.text import TELEGRAM_LIMIT, format_answer, parse_scope, preview, split_message, utf16_len


def test_a_short_text_is_one_part_and_an_empty_one_is_still_a_part():
    assert split_message("hello") == ["hello"]
    assert split_message("") == [""]


def test_split_prefers_a_paragraph_break_and_loses_nothing():
    text = "a" * 3500 + "\n\n" + "b" * 3000
    assert split_message(text) == ["a" * 3500, "b" * 3000]


def test_split_cuts_an_unbroken_text_at_the_limit():
    parts = split_message("x" * 9000)
    assert [len(p) for p in parts] == [4096, 4096, 808]


def test_split_counts_utf16_units_and_never_halves_an_emoji():
    text = "😀" * 3000  # 6000 UTF-16 units
    parts = split_message(text)
    assert all(utf16_len(p) <= TELEGRAM_LIMIT for p in parts)
    assert "".join(parts) == text and len(parts) == 2


def test_preview_fits_one_message_and_marks_the_cut():
    shown = preview("y" * 5000)
    assert utf16_len(shown) == TELEGRAM_LIMIT and shown.endswith("…")


@pytest.mark.parametrize(("arg", "scope"), [("all", "all"), ("NONE", "none"), ("3", "3"), ("007", "7"),
                                            ("0", None), ("-1", None), ("x", None), ("３", None), ("", None)])
def test_parse_scope(arg, scope):
    assert parse_scope(arg) == scope


def test_format_answer_adds_sources_and_says_when_the_llm_failed():
    assert format_answer("Done [TASK #1].", ["[TASK #1]"]) == "Done [TASK #1].\n\nSources: [TASK #1]"
    assert "language model was unavailable" in format_answer("Quoted.", [], "timeout")
    assert format_answer("  ", []) == "I don't know."


def test_the_chat_map_survives_a_reload_and_a_damaged_file_is_ignored(tmp_path):
    path = tmp_path / "sub" / "state.json"
    ChatStore(path).put(5, ChatState(conversation_id=41, scope="3", scope_label="Login"))
    assert ChatStore(path).get(5) == ChatState(41, "3", "Login")
    path.write_text("{not json")
    assert ChatStore(path).get(5) == ChatState()
