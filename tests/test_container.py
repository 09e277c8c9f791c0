"""The container of the embedded app, checked from its instructions: no container engine can run where this
is tested, so docker/app.Dockerfile is parsed (continuations, comments, exec and shell forms) and its final
stage held to what a production image needs. The non-editable install's migrations are checked against the
package metadata and the lookup in app/engines/migration_files.py."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.engines.migration_files import SHARE, migrations_dir

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "docker" / "app.Dockerfile"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str

    def words(self) -> list[str]:
        """The arguments of an exec form (a JSON array) or a shell form, as words."""
        text = self.args.strip()
        if text.startswith("["):
            return json.loads(text)
        return shlex.split(text)


def parse(text: str) -> list[Instruction]:
    instructions, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):  # a comment inside a continued instruction
            continue
        pending += " " + line.removesuffix("\\").strip() if pending else line.removesuffix("\\").strip()
        if not line.endswith("\\"):
            keyword, _, args = pending.partition(" ")
            instructions.append(Instruction(keyword.upper(), args.strip()))
            pending = ""
    assert not pending, "the Dockerfile ends inside a continued instruction"
    return instructions


def final_stage(instructions: list[Instruction]) -> list[Instruction]:
    starts = [i for i, ins in enumerate(instructions) if ins.keyword == "FROM"]
    return instructions[starts[-1]:]


@pytest.fixture(scope="module")
def stage() -> list[Instruction]:
    return final_stage(parse(DOCKERFILE.read_text()))


def only(stage: list[Instruction], keyword: str) -> Instruction:
    found = [ins for ins in stage if ins.keyword == keyword]
    assert len(found) == 1, f"expected one {keyword} in the final stage, found {len(found)}"
    return found[0]


def test_the_parser_reads_continuations_comments_and_both_forms():
    parsed = parse('FROM a AS b\n# note\nRUN x \\\n  # inside\n  && y\nCMD ["sh", "-c", "a && b"]\nENV A=1 \\\n B=2\n')
    assert [i.keyword for i in parsed] == ["FROM", "RUN", "CMD", "ENV"]
    assert parsed[1].args == "x && y" and parsed[2].words() == ["sh", "-c", "a && b"]
    assert parsed[3].words() == ["A=1", "B=2"]


def test_the_image_runs_as_an_unprivileged_user(stage):
    user = only(stage, "USER").args.split(":")[0]
    assert user not in ("root", "0", "")
    keywords = [ins.keyword for ins in stage]
    assert keywords.index("USER") < keywords.index("CMD") and "ENTRYPOINT" not in keywords
    created = " ".join(ins.args for ins in stage if ins.keyword == "RUN")
    assert re.search(rf"useradd\b.*\b{user}\b", created), "the user is created in the image"
    uid = re.search(r"useradd\b[^&]*--uid (\d+)", created)
    assert uid and int(uid.group(1)) >= 1000, "a fixed unprivileged uid (volumes keep their owner across images)"


def test_the_package_is_installed_from_a_wheel_not_editable(stage):
    installs = [ins.args for ins in stage if ins.keyword == "RUN" and "pip install" in ins.args]
    assert installs, "the final stage installs the package"
    for command in installs:
        words = command.split()
        assert "-e" not in words and "--editable" not in words, command
        assert ".whl" in command, "a built wheel: the image does not depend on the source tree"
    copies = [ins.args for ins in stage if ins.keyword == "COPY"]
    assert all(c.startswith("--from=") for c in copies), "the runtime stage copies only build artefacts"


def test_the_database_lives_on_a_volume_the_user_owns(stage):
    volumes = only(stage, "VOLUME").words()
    env = dict(word.split("=", 1) for ins in stage if ins.keyword == "ENV" for word in ins.words())
    url = env["RAG_DATABASE_URL"]
    assert url.startswith("sqlite:////"), "an absolute path"
    db_path = Path(url.removeprefix("sqlite:///"))
    assert any(db_path.is_relative_to(v) for v in volumes), f"{db_path} is not on a volume {volumes}"
    user = only(stage, "USER").args.split(":")[0]
    chowns = " ".join(ins.args for ins in stage if ins.keyword == "RUN")
    assert re.search(rf"chown {user}(:\S+)? {re.escape(volumes[0])}\b", chowns), "the user can write the volume"
    run_step = next(i for i, ins in enumerate(stage) if ins.keyword == "RUN" and "chown" in ins.args)
    volume_step = next(i for i, ins in enumerate(stage) if ins.keyword == "VOLUME")
    assert run_step < volume_step, "Docker discards changes to a volume's path made after VOLUME"


def test_the_health_check_asks_healthz_on_the_served_port(stage):
    port = only(stage, "EXPOSE").args.split("/")[0]
    health = only(stage, "HEALTHCHECK").args
    options, _, command = health.partition("CMD")
    assert re.search(r"--interval=\d+s", options) and re.search(r"--timeout=\d+s", options)
    words = json.loads(command.strip())
    assert words[0] == "python" and f"http://127.0.0.1:{port}/healthz" in words[-1]  # slim images have no curl
    serve = only(stage, "CMD").words()[-1]
    assert "ragctl migrate" in serve and "exec ragctl serve" in serve
    assert "--host 0.0.0.0" in serve and f"--port {port}" in serve


def test_the_build_context_holds_what_the_build_copies_and_no_secrets():
    build = parse(DOCKERFILE.read_text())
    sources = [w for ins in build if ins.keyword == "COPY" and not ins.args.startswith("--from")
               for w in ins.words()[:-1]]
    assert sources and all((ROOT / s).exists() for s in sources), sources
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {".git", ".venv", "data", ".env"} <= ignored  # data/ holds the dev token
    assert not ignored & set(sources)


def test_a_wheel_carries_every_migration_where_the_lookup_finds_it():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    for engine in ("sqlite", "oracle"):
        patterns = config[str(SHARE / engine)]
        shipped = {p for pattern in patterns for p in ROOT.glob(pattern)}
        assert shipped == set((ROOT / "migrations" / engine).glob("*.sql")) and shipped


def test_the_migrations_are_found_in_a_checkout_or_an_installed_wheel(tmp_path):
    checkout, site, data = tmp_path / "repo", tmp_path / "site-packages", tmp_path / "prefix"
    (checkout / "app").mkdir(parents=True)
    (checkout / "migrations" / "sqlite").mkdir(parents=True)
    (site / "app").mkdir(parents=True)
    (data / SHARE / "sqlite").mkdir(parents=True)
    assert migrations_dir("sqlite", checkout / "app", data) == checkout / "migrations" / "sqlite"
    assert migrations_dir("sqlite", site / "app", data) == data / SHARE / "sqlite"
    with pytest.raises(FileNotFoundError, match="reinstall"):
        migrations_dir("oracle", site / "app", data)


def test_every_package_of_app_is_a_regular_package_the_wheel_carries():
    """setuptools' package discovery skips a folder without __init__.py: the image would lack that code (an
    editable install, as in `make test`, would not notice)."""
    folders = {p.parent for p in (ROOT / "app").rglob("*.py")}
    assert folders and all((folder / "__init__.py").exists() for folder in folders), sorted(
        str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").exists())
