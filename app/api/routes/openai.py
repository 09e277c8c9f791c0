"""The OpenAI-compatible face: ``GET /v1/models`` and ``POST /v1/chat/completions``, so Open WebUI,
LibreChat, the OpenAI SDKs and LangChain's ``ChatOpenAI`` can use this backend as a model.

A face only translates its protocol: who asks comes from the token (a token bound to one employee) or
from OpenAI's ``user`` field that an admin or bot token may set, never from the prompt; the answer comes
from the same chat core as /api/v1/chat. Errors are OpenAI's error object (app/api/errors.py).
"""

from __future__ import annotations

import time

from fastapi import APIRouter

from app.api.openai_schemas import MODELS, ModelCard, ModelList, error_responses

router = APIRouter(prefix="/v1", tags=["openai"])
STARTED = int(time.time())


@router.get("/models", response_model=ModelList, responses=error_responses(401))
def list_models() -> ModelList:
    """The answer modes, as OpenAI models."""
    return ModelList(data=[ModelCard(id=name, created=STARTED, description=what) for name, what in MODELS.items()])
