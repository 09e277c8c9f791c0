"""Pure pieces of the Telegram bot: splitting at the message limit, scopes, the catalogue in both
languages, choosing a project by name, the durable chat map, and redacting secrets from log lines."""

from __future__ import annotations

import dataclasses
import json
import string

import pytest

from app.logs import REDACTED, redact
from app.telegram.catalogue import EN, ES, texts_for
from app.telegram.scoping import choose, fixed_scope
from app.telegram.state import ChatState, ChatStore, state_key
from app.telegram.text import TELEGRAM_LIMIT, format_answer, preview, scope_name, split_message, utf16_len


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
def test_fixed_scope(arg, scope):
    assert fixed_scope(arg) == scope


def test_format_answer_adds_sources_and_says_when_the_llm_failed():
    assert format_answer(EN, "Done [TASK #1].", ["[TASK #1]"]) == "Done [TASK #1].\n\nSources: [TASK #1]"
    assert "language model was unavailable" in format_answer(EN, "Quoted.", [], "timeout")
    assert format_answer(EN, "  ", []) == "I don't know."
    assert format_answer(ES, "Hecho [TASK #1].", ["[TASK #1]"]) == "Hecho [TASK #1].\n\nFuentes: [TASK #1]"


def test_scope_names_are_the_users_language_and_a_project_is_named_by_our_api():
    assert [scope_name(ES, s, "All projects") for s in (None, "all", "none")] == [
        "Todos los proyectos (por defecto)", "Todos los proyectos", "Ningún proyecto"]
    assert scope_name(ES, "3", "Login revamp") == "Login revamp" and scope_name(ES, "3", None) == "proyecto 3"


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_both_catalogues_say_everything_with_the_same_placeholders():
    for field in dataclasses.fields(EN):
        english, spanish = getattr(EN, field.name), getattr(ES, field.name)
        assert english.strip() and spanish.strip() and english != spanish, field.name
        assert placeholders(english) == placeholders(spanish), field.name
    for command in ("/new", "/projects", "/scope all", "/scope none", "/help"):
        assert command in EN.help and command in ES.help
    assert all(len(getattr(t, f)) <= 256 for t in (EN, ES) for f in ("cmd_start", "cmd_help", "cmd_new",
                                                                       "cmd_scope", "cmd_projects"))


@pytest.mark.parametrize(("code", "texts"), [("es", ES), ("es-419", ES), ("ES-es", ES), ("en", EN), ("en-GB", EN),
                                             ("pt-BR", EN), ("", EN), (None, EN)])
def test_the_language_comes_from_telegrams_language_code(code, texts):
    assert texts_for(code) is texts


RANKED = [{"project_id": 5, "name": "Payments Platform", "score": 0.82},
          {"project_id": 6, "name": "Payments  reconciliation", "score": 0.79},
          {"project_id": 3, "name": "Mobile App", "score": 0.12}]


@pytest.mark.parametrize(("query", "ranked", "chosen", "offered"), [
    ("payments", RANKED, None, [5, 6]),  # two match well: the user chooses
    ("payments reconciliation", RANKED, 6, []),  # the name itself (case and spacing aside) wins
    ("payments", RANKED[:1] + RANKED[2:], 5, []),  # one good match
    ("gardening", [dict(p, score=0.1) for p in RANKED], None, []),  # nothing good: nothing offered
    ("x", [], None, []),
])
def test_choosing_a_project_by_name(query, ranked, chosen, offered):
    picked, candidates = choose(query, ranked)
    assert (picked and picked["project_id"], [p["project_id"] for p in candidates]) == (chosen, offered)


def test_redact_removes_a_secret_as_written_and_as_json_escapes_it():
    secret = 'to"k\\en'
    line = json.dumps({"message": f"POST https://api/bot{secret}/getMe", "raw": secret})
    assert secret not in redact(line, [secret]) and json.dumps(secret)[1:-1] not in redact(line, [secret])
    assert redact(line, [secret]).count(REDACTED) == 2 and redact("nothing", ["", "x"]) == "nothing"


def test_the_chat_map_survives_a_reload_and_a_damaged_file_is_ignored(tmp_path):
    path, key = tmp_path / "sub" / "state.json", state_key("123:bot")
    ChatStore(path, key).put(5, ChatState(conversation_id=41, scope="3", scope_label="Login"))
    assert ChatStore(path, key).get(5) == ChatState(41, "3", "Login")
    assert ChatStore(path, state_key("456:another-bot")).get(5) == ChatState()  # a new token starts afresh
    path.write_text("{not json")
    assert ChatStore(path, key).get(5) == ChatState()


def test_the_chat_map_holds_no_telegram_id_and_forgets_a_chat_whole(tmp_path):
    """Issue 26, point 9: the file on the bot's host, where an erasure cannot reach, names no one."""
    path, key = tmp_path / "state.json", state_key("123:bot")
    store = ChatStore(path, key)
    store.put(100000007, ChatState(conversation_id=41, scope="3", scope_label="Login"))
    store.put(100000008, ChatState(conversation_id=42))
    assert b"100000007" not in path.read_bytes() and b"100000008" not in path.read_bytes()
    store.forget(100000007)
    assert ChatStore(path, key).get(100000007) == ChatState() and ChatStore(path, key).get(100000008).conversation_id == 42
    assert b"41" not in path.read_bytes() and b"Login" not in path.read_bytes()


def test_a_chat_map_keyed_by_chat_id_is_rewritten_hashed_when_loaded(tmp_path):
    path, key = tmp_path / "state.json", state_key("123:bot")
    path.write_text(json.dumps({"100000007": {"conversation_id": 41, "scope": "all", "scope_label": None}}))
    assert ChatStore(path, key).get(100000007) == ChatState(41, "all")
    assert b"100000007" not in path.read_bytes()
    assert ChatStore(path, key).get(100000007) == ChatState(41, "all")
