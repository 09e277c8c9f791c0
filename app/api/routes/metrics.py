"""GET /metrics: the Prometheus text format, for a scraper holding RAG_METRICS_TOKEN (off while unset)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.api.deps import SettingsDep

router = APIRouter(tags=["health"])
_bearer = HTTPBearer(auto_error=False, description="RAG_METRICS_TOKEN")


def require_metrics_token(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    if settings.metrics_token is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "metrics are off: set RAG_METRICS_TOKEN and scrape with it")
    offered = credentials.credentials.encode() if credentials is not None else b""
    # Digests of equal length, so the comparison's time says nothing about the token's length.
    expected = hashlib.sha256(settings.metrics_token.get_secret_value().encode()).digest()
    if not hmac.compare_digest(hashlib.sha256(offered).digest(), expected):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or invalid metrics token",
                            headers={"WWW-Authenticate": "Bearer"})


# Out of the OpenAPI schema: an operator's endpoint in Prometheus's text format, not part of the API a
# bot programs against (and a schema fuzzer cannot know that 404 means "switched off").
@router.get("/metrics", dependencies=[Depends(require_metrics_token)], response_class=Response,
            include_in_schema=False)
def scrape(request: Request) -> Response:
    """Queue, chunk, drain, search and LLM metrics. Sync, so the status query runs in the thread pool."""
    return Response(generate_latest(request.app.state.metrics), media_type=CONTENT_TYPE_LATEST)
