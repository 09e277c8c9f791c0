"""compose.dev.yml parses (Debian's docker-compose validates it offline) and keeps its promises."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.dev.yml"


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="docker-compose is not installed (Debian: apt-get install docker-compose)")
def test_compose_file_validates():
    done = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config", "-q"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_compose_uses_a_26ai_image_with_oracle_text_and_the_init_script():
    text = COMPOSE.read_text()
    image = next(line.split("image:", 1)[1].strip() for line in text.splitlines() if "image:" in line)
    assert image.startswith("gvenzl/oracle-free:23.26.") and "slim" not in image
    init = (ROOT / "docker" / "oracle-init" / "01-app-grants.sql").read_text()
    assert init.startswith("--") and "ALTER SESSION SET CONTAINER=FREEPDB1;" in init
    assert "GRANT CREATE MINING MODEL TO app;" in init and "GRANT READ, WRITE ON DIRECTORY MODEL_DIR TO app;" in init
    assert "ragctl oracle bootstrap" in text and "ragctl serve" in text
    # DISPLAY_CURSOR (the doctor's `ivf plan`) reads these fixed views with the caller's rights (REVIEW-2 W2).
    for view in ("V_$SQL", "V_$SQL_PLAN", "V_$SESSION", "V_$SQL_PLAN_STATISTICS_ALL"):
        assert f"GRANT SELECT ON {view} TO app;" in init


def test_scripts_are_executable_shell():
    for name in ("fetch-onnx-model.sh", "bootstrap"):
        path = ROOT / "scripts" / name
        assert path.stat().st_mode & 0o111, f"{name} is not executable"
        assert subprocess.run(["bash", "-n", str(path)]).returncode == 0


def test_every_init_script_stops_at_its_first_sql_error():
    # gvenzl runs init scripts through SQL*Plus, which goes on after an error unless told to exit
    # (FACTS.md §12.6): without this line a failed grant leaves a container that looks healthy.
    scripts = sorted((ROOT / "docker" / "oracle-init").glob("*.sql"))
    assert scripts
    for script in scripts:
        lines = [line.strip() for line in script.read_text().splitlines()]
        first = next(line for line in lines if line and not line.startswith("--"))
        assert first == "WHENEVER SQLERROR EXIT FAILURE", f"{script.name} starts with {first!r}"
