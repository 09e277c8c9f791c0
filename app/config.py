"""All configuration, read from the environment (prefix ``RAG_``) with safe defaults."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.auth import TokenGrant, parse_grants

# An unquoted Oracle identifier: letter first, then letters, digits, _ $ #, at most 128 bytes.
# Anything spliced into SQL text (the model name) must match this; binds cannot carry identifiers.
PLAIN_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$#]{0,127}")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RAG_", env_file=".env", env_ignore_empty=True, extra="ignore",
        hide_input_in_errors=True,  # errors must not echo a token (or a password in a URL)
    )

    database_url: str = "sqlite:///./data/rag.db"
    oracle_user: str | None = None
    oracle_password: SecretStr | None = None
    oracle_pool_min: int = Field(1, ge=1)
    oracle_pool_max: int = Field(4, ge=1)
    # How long a request waits for a free pooled connection (POOL_GETMODE_TIMEDWAIT) before it is answered 503 with
    # Retry-After: a saturated pool (worker + long Text optimize + requests) must not hang callers.
    oracle_pool_wait_timeout_ms: int = Field(5000, ge=1)
    # Every round trip on a pooled connection ends within this (python-oracledb call_timeout): a lock wait or a stuck
    # call is a 503 (DPY-4024), never a connection held for ever. The operator's commands (migrate, model load, index
    # rebuild) are not cut; the erasure purge has its own bound above its sync's maxtime.
    oracle_call_timeout_ms: int = Field(60_000, ge=1)
    # Operator work the service runs on the same pool (REVIEW-4 U3): a forced backfill's INSERT ... SELECT over every
    # source, the erasure's redaction and proof scans; a worker batch gets batch_size x 500 ms (never less than the
    # call timeout, never more than this). Cut past it, the work stops with a message naming this setting.
    oracle_operator_call_timeout_ms: int = Field(900_000, ge=1)
    oracle_model_name: str = "ALL_MINILM_L12_V2"
    onnx_model_url: SecretStr | None = None  # pre-authenticated URL from Terraform
    onnx_model_directory: str = "MODEL_DIR"  # directory object for local LOAD_ONNX_MODEL
    onnx_model_file: str = "all_MiniLM_L12_v2.onnx"
    onnx_bundle_url: str = (
        # Oracle rotates this pre-authenticated URL; override when it answers 401/404.
        "https://adwc4pm.objectstorage.us-ashburn-1.oci.customer-oci.com/p/"
        "TtH6hL2y25EypZ0-rrczRZ1aXp7v1ONbRBfCiT-BDBN8WLKQ3lgyW6RxCfIFLdA6/n/adwc4pm/b/"
        "OML-ai-models/o/all_MiniLM_L12_v2_augmented.zip"
    )

    # The embedded engine's model (app/embedding/models.py); Oracle embeds with RAG_ORACLE_MODEL_NAME.
    embedding_model: str = "all-MiniLM-L6-v2-int8"

    top_k: int = Field(8, ge=1, le=100)
    # Who sees a task (docs/CONFIGURATION.md): "assignee" (a developer sees the tasks assigned to them) or
    # "project" (also every task of each project they are a member of: PROJECT_MEMBERS). A Literal: anything
    # else fails at startup.
    access_rule: Literal["assignee", "project"] = "assignee"
    search_mode: Literal["hybrid", "vector", "lexical"] = "hybrid"
    backfill_on_startup: bool = True
    run_worker: bool = True  # start the APScheduler drain job inside `ragctl serve`
    worker_delay_ms: int = Field(2000, ge=10)
    worker_initial_delay_ms: int = Field(5000, ge=0)
    batch_size: int = Field(32, ge=1, le=1000)
    max_attempts: int = Field(5, ge=1)
    # A failed queue row waits this long before its next attempt, doubled per attempt up to the max.
    retry_backoff_ms: int = Field(1000, ge=0)
    retry_backoff_max_ms: int = Field(300_000, ge=0)

    llm_url: str | None = None  # OpenAI-compatible base URL, e.g. http://localhost:11434/v1
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(60.0, gt=0)
    # Every chat-completions request asks for at most this many tokens: a model that does not stop would
    # otherwise generate to the end of its context, holding a one-at-a-time LLM server long after our deadline.
    llm_max_tokens: int = Field(1024, ge=16, le=100_000)
    # The offline answer quotes a hit only when its cosine distance to the question is at most this (and
    # it shares a topic word); else it says "I don't know". Calibrated on the golden set over the demo data,
    # keeping SciFact answered >= 97%: scripts/calibrate_answer_threshold.py, docs/CHAT.md "Honest answers".
    answer_max_distance: float = Field(0.655, ge=0.0, le=2.0)
    # Project auto-summaries (app/summaries_job.py): a job that runs wherever the drain worker runs (`ragctl
    # serve` with RAG_RUN_WORKER, `ragctl worker`) and only when an LLM is configured. Every sweep compares each
    # project's inputs with the fingerprint its summary was made from: a missing summary or an edited name or
    # description is remade at that sweep; edits to its tasks at most once per task interval.
    run_summaries: bool = True
    summary_sweep_s: float = Field(60.0, gt=0)
    summary_task_interval_s: float = Field(3600.0, ge=0)
    summary_max_tasks: int = Field(20, ge=0, le=200)  # the newest tasks (by id) a summary is made from
    # Chats in flight at once (each may wait on the LLM); one more is answered 503 + Retry-After.
    chat_max_concurrency: int = Field(32, ge=1, le=10_000)
    # Long-lived streams (GET /mcp, the SSE chat streams): at most this many open at once per token (one more
    # is a 429; a bot token needs at least its bot's concurrent answers), and each is closed by the server once
    # it has sent nothing for this long (the chat streams ping meanwhile; GET /mcp sends nothing).
    streams_per_token: int = Field(32, ge=1, le=10_000)
    stream_idle_timeout_s: float = Field(120.0, gt=0)
    # Conversations: the last N turns (user + assistant pairs) go into the prompt and the follow-up
    # query; a new conversation's retrieval scope ("all", "none" or a project id); the bound on the
    # model's tool-calling loop (0 offers no tools).
    chat_history_turns: int = Field(6, ge=0, le=50)
    chat_default_scope: str = "all"
    chat_max_tool_rounds: int = Field(3, ge=0, le=10)

    # The operator console (/console): how often its charts sample queue depth and search latency from the
    # service's own metrics (one hour is kept in memory). Each sample reads the status /metrics serves (one
    # status query, cached 5 s and shared with scrapes; on Oracle it includes the IVF accuracy probe).
    console_sample_s: float = Field(60.0, ge=0.05, le=600)
    # Where `ragctl eval` writes its last results (golden.json, beir.json) and the console's Quality page reads them.
    eval_results_dir: str = "./data/eval"

    # Largest request body accepted (413 beyond). 2 MiB admits the largest legitimate body: a
    # 100,000-character document text even when every character is a JSON-escaped surrogate pair.
    max_body_bytes: int = Field(2 * 1024 * 1024, ge=1024)

    # Comma-separated bearer tokens with full (admin) access, each plain or ``sha256:<hex>``; empty
    # (and no scoped tokens) means every data endpoint answers 401. Secret, so a logged or printed
    # Settings never shows them.
    api_tokens: SecretStr = SecretStr("")
    # GET /metrics answers only `Authorization: Bearer <this>` (404 while unset). Separate from the API
    # tokens, so a Prometheus scraper's credential cannot search, chat or read records.
    metrics_token: SecretStr | None = None
    # `ragctl serve`/`worker` log one JSON object per line; `text` is easier to read in development.
    log_format: Literal["json", "text"] = "json"
    # Scoped tokens, a JSON list: [{"token": "sha256:<hex>", "scope": "bot", "name": "telegram",
    # "employee_ids": [1, 2], "roles": ["DEVELOPER"]}] (see app/auth.py and docs/CONFIGURATION.md).
    api_token_scopes: SecretStr = SecretStr("")
    # `ragctl mcp` (stdio) asks as one employee: this id, or the employee of a user token given in
    # RAG_MCP_TOKEN (an admin or bot token there makes each tool call name the asker, as on /mcp).
    mcp_employee_id: int | None = Field(None, gt=0, le=2**63 - 1)
    mcp_token: SecretStr | None = None

    # Trackers as sources (app/sources, docs/IMPORT.md). Jira: Server/Data Center with a personal access token
    # (REST v2), or Cloud with an e-mail + API token (REST v3); the projects to sync by key.
    jira_url: str | None = None
    jira_pat: SecretStr | None = None
    jira_email: str | None = None
    jira_api_token: SecretStr | None = None
    jira_projects: str | None = None  # comma-separated keys: PAY,MOB
    jira_story_points_field: str = "customfield_10016"  # Cloud's "Story point estimate"; Server often customfield_10002
    jira_sprint_field: str | None = None  # the sprint custom field; unset: any field whose values look like sprints
    github_token: SecretStr | None = None
    github_repos: str | None = None  # comma-separated OWNER/REPO for `ragctl sync github` and the scheduled sync
    github_api_url: str = "https://api.github.com"
    github_label_map: str | None = None  # JSON {"priority": {"p0": "CRITICAL"}, "type": {"bug": "Bug"}}
    # Project membership from the tracker on every sync pass (issue 32, app/sources/member_sync.py): Jira's project
    # role actors (groups expanded); GitHub's collaborators and team members, or "everyone" the repository's import
    # created (a public repository).
    jira_members: Literal["roles", "off"] = "roles"
    github_members: Literal["collaborators", "everyone", "off"] = "collaborators"
    # JSON {"<tracker account id>": "MANAGER" | {"email": ..., "role": ...}}: roles by account id only, an e-mail only
    # where confirmed for an account (app/sources/people.py, docs/IMPORT.md); everyone else a DEVELOPER
    sources_people_file: str | None = None
    # The scheduled sync inside `ragctl serve` (0: off); each pass re-reads this much before its cursor (JQL dates
    # are minutes, and clocks differ); every Nth pass also reconciles the keys (deletions, moves).
    sync_interval_s: float = Field(0.0, ge=0)
    sync_overlap_s: float = Field(120.0, ge=0)
    sync_reconcile_every: int = Field(12, ge=1)
    # A 429 / 5xx is retried after Retry-After (else a doubling backoff), each wait at most this long, this often.
    sync_max_retries: int = Field(5, ge=0, le=20)
    sync_max_wait_s: float = Field(60.0, gt=0)
    # Every pass bounded (issue 33): one response, headers to last byte, in this long and this many bytes; one pass in
    # this long, this many responses and bytes; one issue's comments at most this many. A bound hit ends the pass with
    # a clear error (`ragctl status`, the log); what it wrote stays and the next pass resumes from its cursor.
    sync_response_timeout_s: float = Field(120.0, gt=0)
    sync_max_response_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    sync_pass_budget_s: float = Field(3600.0, gt=0)
    sync_max_pages: int = Field(5000, ge=1)
    sync_max_pass_bytes: int = Field(4096 * 1024 * 1024, ge=1024)
    sync_max_comments_per_issue: int = Field(5000, ge=1)
    # A tracker URL must be https (a token crosses the network) except on loopback, unless this allows http.
    sync_allow_http: bool = False

    @field_validator("database_url")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        if not (value.startswith("sqlite:///") or value.startswith("oracle://")):
            raise ValueError(
                "RAG_DATABASE_URL must start with sqlite:/// (e.g. sqlite:///./data/rag.db) "
                "or oracle:// (e.g. oracle://app@localhost:1521/FREEPDB1)"
            )
        return value

    @field_validator("oracle_model_name")
    @classmethod
    def _plain_identifier(cls, value: str) -> str:
        if not PLAIN_IDENTIFIER.fullmatch(value):
            raise ValueError(
                f"RAG_ORACLE_MODEL_NAME {value!r} is not a plain identifier "
                "(letter first, then letters, digits, _ $ #)"
            )
        return value.upper()

    @field_validator("embedding_model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        from app.embedding.models import model_spec  # pure data: no model is loaded here

        return model_spec(value).name

    @model_validator(mode="after")
    def _oracle_needs_credentials(self) -> Settings:
        if self.engine == "oracle" and self.oracle_password is None and not self._url_has_password:
            raise ValueError("an oracle:// RAG_DATABASE_URL needs RAG_ORACLE_PASSWORD (or a password in the URL)")
        return self

    @model_validator(mode="after")
    def _llm_needs_a_model(self) -> Settings:
        # Without a model every chat would silently fall back to the extractive answer.
        if self.llm_url and not self.llm_model:
            raise ValueError("RAG_LLM_URL is set but RAG_LLM_MODEL is not: name the model to call "
                             "(e.g. RAG_LLM_MODEL=llama3.1:8b), or unset RAG_LLM_URL to answer extractively")
        return self

    @field_validator("chat_default_scope")
    @classmethod
    def _scope_word_or_id(cls, value: str) -> str:
        from app.domain import check_rag_scope  # a bad default fails at startup, not in every chat

        return check_rag_scope(value)

    @model_validator(mode="after")
    def _jira_needs_credentials(self) -> Settings:
        # RAG_JIRA_URL alone names the site a file import belongs to (docs/IMPORT.md); a sync (projects named) needs
        # credentials.
        if self.jira_url and self.jira_projects and not (self.jira_pat or (self.jira_email and self.jira_api_token)):
            raise ValueError("RAG_JIRA_PROJECTS names projects to sync from RAG_JIRA_URL without credentials: "
                             "RAG_JIRA_PAT (Server/Data Center) or RAG_JIRA_EMAIL + RAG_JIRA_API_TOKEN (Cloud)")
        return self

    @model_validator(mode="after")
    def _tracker_urls_keep_tokens_safe(self) -> Settings:
        from app.sources.bounds import check_tracker_url  # pure: no client is made here

        if self.jira_url and (self.jira_pat or self.jira_api_token):  # alone, it only names a file import's site
            check_tracker_url(self.jira_url, allow_http=self.sync_allow_http, setting="RAG_JIRA_URL")
        check_tracker_url(self.github_api_url, allow_http=self.sync_allow_http, setting="RAG_GITHUB_API_URL")
        return self

    @model_validator(mode="after")
    def _tokens_parse(self) -> Settings:
        self.token_grants()  # fail at startup, not on the first request
        return self

    def token_grants(self) -> tuple[TokenGrant, ...]:
        return parse_grants(self.api_tokens.get_secret_value(), self.api_token_scopes.get_secret_value())

    @property
    def engine(self) -> Literal["sqlite", "oracle"]:
        return "sqlite" if self.database_url.startswith("sqlite:///") else "oracle"

    @property
    def sqlite_path(self) -> str:
        return self.database_url.removeprefix("sqlite:///")

    @property
    def _url_has_password(self) -> bool:
        netloc = self.database_url.removeprefix("oracle://").split("/", 1)[0]
        return "@" in netloc and ":" in netloc.split("@", 1)[0]

    @cached_property
    def tokens(self) -> frozenset[str]:
        """The raw RAG_API_TOKENS entries (the API itself authenticates with token_grants())."""
        return frozenset(t.strip() for t in self.api_tokens.get_secret_value().split(",") if t.strip())
