"""The OpenAI-compatible face through the official `openai` SDK against a real loopback server."""

from __future__ import annotations

import openai
import pytest

from app.api.main import create_app
from app.api.openai_schemas import MODELS

from .servers import serve


@pytest.fixture
def base_url(api_settings, sqlite_engine):
    with serve(create_app(api_settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
        yield f"{url}/v1"


def sdk(base_url: str, token: str = "test-token") -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=token, max_retries=0, timeout=60)


def test_the_models_are_the_answer_modes(base_url):
    listed = sdk(base_url).models.list()
    assert [m.id for m in listed.data] == list(MODELS) == ["rag-hybrid", "rag-vector", "rag-lexical", "rag-extractive"]
    assert all(m.object == "model" and m.owned_by == "oracle-rag" for m in listed.data)


@pytest.mark.parametrize("token", ["wrong-token", "test-token-and-more"])
def test_a_refused_token_is_openais_authentication_error(base_url, token):
    with pytest.raises(openai.AuthenticationError) as refused:
        sdk(base_url, token).models.list()
    assert refused.value.status_code == 401
    assert refused.value.body == {"message": "missing or invalid bearer token", "type": "authentication_error",
                                  "param": None, "code": None}
