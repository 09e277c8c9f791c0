import pytest
from pydantic import ValidationError

from app.config import Settings


def test_defaults_match_design():
    s = Settings(_env_file=None)
    assert s.engine == "sqlite" and s.sqlite_path == "./data/rag.db"
    assert (s.top_k, s.batch_size, s.max_attempts) == (8, 32, 5)
    assert (s.worker_delay_ms, s.worker_initial_delay_ms) == (2000, 5000)
    assert s.oracle_model_name == "ALL_MINILM_L12_V2" and s.backfill_on_startup
    assert s.tokens == frozenset()


@pytest.mark.parametrize("name", ["X; DROP TABLE T", "a b", "1ABC", '"QUOTED"', "M" * 129, "ALL_MINILM_L12_V2\n"])
def test_model_name_must_be_plain_identifier(name):
    with pytest.raises(ValidationError, match="plain identifier"):
        Settings(_env_file=None, oracle_model_name=name)


def test_model_name_is_upper_cased():
    assert Settings(_env_file=None, oracle_model_name="all_minilm_l12_v2").oracle_model_name == "ALL_MINILM_L12_V2"


def test_unknown_scheme_rejected():
    with pytest.raises(ValidationError, match="RAG_DATABASE_URL"):
        Settings(_env_file=None, database_url="postgres://x")


def test_oracle_needs_a_password():
    with pytest.raises(ValidationError, match="RAG_ORACLE_PASSWORD"):
        Settings(_env_file=None, database_url="oracle://app@localhost:1521/FREEPDB1")
    assert Settings(_env_file=None, database_url="oracle://app:pw@localhost:1521/FREEPDB1").engine == "oracle"


def test_tokens_parsed_from_env(monkeypatch):
    monkeypatch.setenv("RAG_API_TOKENS", " a , b ,,")
    assert Settings(_env_file=None).tokens == frozenset({"a", "b"})


def test_secrets_are_not_in_the_settings_repr():
    s = Settings(_env_file=None, api_tokens="tok-one,tok-two", llm_api_key="sk-llm")
    shown = repr(s) + str(s) + s.model_dump_json()
    assert "tok-one" not in shown and "tok-two" not in shown and "sk-llm" not in shown
    assert s.tokens == frozenset({"tok-one", "tok-two"})


def test_llm_url_without_a_model_is_a_startup_error(monkeypatch):
    monkeypatch.setenv("RAG_LLM_URL", "http://127.0.0.1:11434/v1")
    with pytest.raises(ValidationError, match="RAG_LLM_URL is set but RAG_LLM_MODEL is not"):
        Settings(_env_file=None)
    monkeypatch.setenv("RAG_LLM_MODEL", "llama3.1:8b")
    assert Settings(_env_file=None).llm_model == "llama3.1:8b"
