"""Shared fixtures. The SQLite engine is always real; the Oracle leg needs RAG_TEST_ORACLE_DSN."""

from __future__ import annotations

import fcntl
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import apsw
import pytest

from app.config import Settings

ORACLE_DSN = os.environ.get("RAG_TEST_ORACLE_DSN")  # e.g. oracle://app:apppw@localhost:1521/FREEPDB1
ORACLE_SKIP_REASON = (
    "RAG_TEST_ORACLE_DSN is not set: the Oracle leg of the conformance suite needs a real Oracle 26ai "
    "(`make test-oracle` runs it against compose.dev.yml: see docs/ORACLE.md)"
)


@pytest.fixture(scope="session")
def embedder():
    """One in-process MiniLM for the whole session: loading ONNX Runtime is the slow part. One intra-op thread:
    its vectors are bit-identical to two threads', and on two cores shared with other work the second thread's
    spinning costs more than it gains (120 SciFact abstracts, 7 busy processes: 6.4 s CPU / 13 s wall with one
    thread, 9.9 s / 17-22 s with two)."""
    from app.embedding.onnx_minilm import MiniLMEmbedder

    return MiniLMEmbedder(threads=1)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory, embedder) -> Path:
    """The demo data (app/demo_data.py) seeded and indexed ONCE per run (shared by its xdist workers), through
    the real write path and worker (app.services.golden_eval.demo_engine, as `ragctl demo` does), saved as one SQLite file. Seeding
    costs ~9 s of CPU; a copy of the file (~2 MB) costs milliseconds. Never open the template itself: take a
    copy with ``demo_db``. The demo's dates are relative to the day it is seeded, as before (once per session
    now rather than once per module)."""
    from app.services import golden_eval

    # Under pytest-xdist the workers of one run share their base directory's parent: the first seeds, the
    # others wait on the lock and copy what it saved.
    root = tmp_path_factory.getbasetemp()
    root = root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root
    path = root / "demo-template.db"
    with open(root / "demo-template.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            partial = root / f"demo-template.{os.getpid()}.db"
            with golden_eval.demo_engine(Settings(_env_file=None), embedder) as (engine, _):
                # SQLite's online backup copies the pages of a consistent snapshot, WAL content included,
                # rowids as they are
                target = apsw.Connection(str(partial))
                with target.backup("main", engine.conn, "main") as backup:
                    backup.step()
                target.close()
            assert not Path(f"{partial}-wal").exists()  # the copies take the main file alone
            partial.rename(path)
    return path


@pytest.fixture(scope="session")
def demo_db(demo_template, tmp_path_factory, embedder):
    """A factory of private copies of the seeded demo database: ``with demo_db(base) as (engine, settings):``
    yields the same pair as app.services.golden_eval.demo_engine(base, embedder) — an engine over the demo data
    and ``base`` (default ``Settings(_env_file=None)``) pointing at the copy — without seeding again. Each copy
    is the caller's own, so a module or test may write to or delete from it. A module's fixture is typically

        @pytest.fixture(scope="module")
        def demo(demo_db):
            with demo_db(Settings(_env_file=None, api_tokens="test-token")) as (engine, settings):
                yield engine, settings
    """
    from app.engines.sqlite.engine import SQLiteEngine

    @contextmanager
    def copy(base: Settings | None = None):
        path = tmp_path_factory.mktemp("demo") / "demo.db"
        shutil.copyfile(demo_template, path)
        settings = (base or Settings(_env_file=None)).model_copy(update={"database_url": f"sqlite:///{path}"})
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            yield engine, settings
        finally:
            engine.close()

    return copy


@pytest.fixture
def sqlite_settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path}/rag.db", api_tokens="test-token",
                    eval_results_dir=str(tmp_path / "eval"))


@pytest.fixture
def sqlite_engine(sqlite_settings, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    engine = SQLiteEngine.open(sqlite_settings, embedder=embedder)
    engine.migrate()
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def oracle_settings() -> Settings:
    if not ORACLE_DSN:
        pytest.skip(ORACLE_SKIP_REASON)
    return Settings(database_url=ORACLE_DSN, api_tokens="test-token")


@pytest.fixture
def oracle_engine(oracle_settings):
    from app.engines.oracle.engine import OracleEngine

    engine = OracleEngine.open(oracle_settings)
    engine.migrate()
    engine.wipe()
    yield engine
    engine.close()


@pytest.fixture(params=["sqlite", pytest.param("oracle", marks=pytest.mark.oracle)])
def engine(request):
    """Both engines behind one contract: the conformance suite runs every test on each."""
    return request.getfixturevalue(f"{request.param}_engine")


# `make test` runs the suite on two pytest-xdist workers, a whole module to a worker (--dist loadfile) in
# collection order (--no-loadscope-reorder). The modules that take longest (docs/TESTING.md, the slowest tests)
# go first, so that none of them starts last and runs alone while the other worker idles (longest first).
SLOWEST_MODULES = (
    "tests/quality/test_scifact_subset.py",
    "tests/reliability/test_worker_sigkill.py",
    "tests/api/test_mcp.py",
    "tests/cli/test_cli_eval_golden.py",
    "tests/quality/test_golden_demo.py",
    "tests/quality/test_conversation_bench.py",
    "tests/cli/test_cli_eval_conversations.py",
    "tests/reliability/test_storage_faults.py",
    "tests/sources/test_imported_access.py",
    "tests/api/test_conversation_focus.py",
    "tests/api/test_understanding.py",
    "tests/api/test_answers.py",
)


def pytest_collection_modifyitems(items):
    rank = {module: i for i, module in enumerate(SLOWEST_MODULES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest keep their order
