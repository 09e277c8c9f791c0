"""The README stays a short front page and every documentation link leads somewhere: each relative link names a
file that exists, each #anchor a heading of that file (GitHub's slug rule), and every page under docs/ is reachable
from the README. And what the pages state is true of the code: every setting with its default, every `ragctl`
command and option, every endpoint (read from the Settings models, the click group and the app's routes)."""
import re
from pathlib import Path

import click
import pytest
from pydantic import SecretStr
from starlette.routing import Match

from app.api.main import create_app
from app.cli import cli
from app.config import Settings
from app.telegram.config import TelegramSettings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def prose_lines(path: Path) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a shell block is not a heading)."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for line in prose_lines(path):
        match = re.match(r"#{1,6}\s+(.*)", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
    return result


def relative_links(path: Path) -> list[str]:
    return [target for line in prose_lines(path) for target in LINK.findall(line)
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]  # http:, https:, mailto:


def test_the_slug_rule_matches_githubs_on_the_shapes_these_pages_use():
    assert slug("The one command that runs the conformance suite against compose.dev.yml") == \
        "the-one-command-that-runs-the-conformance-suite-against-composedevyml"
    assert slug("`ragctl oracle doctor`: prove the unconfirmed shapes") == \
        "ragctl-oracle-doctor-prove-the-unconfirmed-shapes"
    assert slug("Access at once, no stale write (V9, `lock_sources`)") == "access-at-once-no-stale-write-v9-lock_sources"


def test_the_readme_is_a_front_page_of_at_most_150_lines():
    assert len(README.read_text().splitlines()) <= 150


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_names_an_existing_file_and_heading(page):
    broken = []
    for target in relative_links(page):
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(README) if t.partition("#")[0]}
    unlinked = [p.name for p in PAGES if p.resolve() not in linked]
    assert PAGES and not unlinked, f"docs pages the README does not link: {unlinked}"


# --- What the pages say is true of the code: settings, the CLI, the endpoint table. ---

def page_text(path: Path, heading: str | None = None) -> tuple[str, list[str]]:
    """A page's prose (outside fences, one string, so an inline code span may wrap a line) and its fenced lines;
    with a heading, only those of its `## heading` section."""
    prose, fenced_lines, fenced = [], [], False
    lines = path.read_text().splitlines()
    if heading is not None:
        start = lines.index(f"## {heading}") + 1
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines = lines[start:end]
    for line in lines:
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif fenced:
            fenced_lines.append(line)
        else:
            prose.append(line)
    return "\n".join(prose), fenced_lines


def tables(lines: list[str]) -> list[list[list[str]]]:
    """The markdown tables among the lines, each a list of rows of cells (GFM: `\\|` is a literal bar), the
    header first, the separator row dropped."""
    found, current = [], []
    for line in [*lines, ""]:
        if line.lstrip().startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            current.append([c.replace("\\|", "|").strip() for c in cells])
        elif current:
            found.append([row for i, row in enumerate(current) if i != 1])
            current = []
    return found


CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> list[str]:
    return CODE_SPAN.findall(text)


# Settings: every field of every Settings model is a row of a settings table (header `| … | default | … |`) on
# docs/CONFIGURATION.md or a page it links to, with the field's real default; every such row names a field.

CONFIGURATION = ROOT / "docs" / "CONFIGURATION.md"
SETTINGS_MODELS = (Settings, TelegramSettings)


def settings_fields() -> dict:
    return {(model.model_config["env_prefix"] + name).upper(): field
            for model in SETTINGS_MODELS for name, field in model.model_fields.items()}


def settings_pages() -> list[Path]:
    linked = {(CONFIGURATION.parent / t.partition("#")[0]).resolve() for t in relative_links(CONFIGURATION)
              if t.partition("#")[0].endswith(".md")}
    return [CONFIGURATION, *sorted(linked - {CONFIGURATION.resolve()})]


def documented_settings() -> dict[str, tuple[str, str]]:
    """Each documented `RAG_*` name → (the default cell it is given, the page)."""
    documented = {}
    for page in settings_pages():
        for table in tables(prose_lines(page)):
            if len(table[0]) < 2 or table[0][1].lower() != "default":
                continue
            for row in table[1:]:
                names = re.findall(r"`(RAG_[A-Z0-9_]+)`", row[0])
                defaults = re.split(r"\s+/\s+|,\s+", row[1]) if len(names) > 1 else [row[1]]
                if len(defaults) == 1:
                    defaults = defaults * len(names)
                assert len(defaults) == len(names), f"{page.name}: {row[0]} has {len(names)} names, defaults {row[1]}"
                for name, default in zip(names, defaults):
                    assert name not in documented, f"{name} is documented twice ({documented[name][1]}, {page.name})"
                    documented[name] = (default.strip(), page.name)
    return documented


def stated_default_is(cell: str, field) -> bool:
    """Whether a table's default cell states the field's real default: `–`/`(none…)` for none (or an empty
    secret), `(required)` for a required field, else the literal value (numbers compared as numbers)."""
    text = cell.strip("`")
    if field.is_required():
        return text == "(required)"
    default = field.default
    if isinstance(default, SecretStr):
        default = default.get_secret_value() or None
    if text in ("–", "-") or text.startswith(("(none", "(required with")):
        return default is None
    if isinstance(default, bool):
        return text == str(default).lower()
    if isinstance(default, (int, float)):
        try:
            return float(text.replace(",", "")) == default
        except ValueError:
            return False
    return text == str(default)


def test_every_setting_is_documented_with_its_real_default_and_every_documented_one_exists():
    fields, documented = settings_fields(), documented_settings()
    undocumented = sorted(set(fields) - set(documented))
    unknown = sorted(set(documented) - set(fields))
    wrong = [f"{name}: {page} says {cell!r}, the code's default is {fields[name].default!r}"
             for name, (cell, page) in sorted(documented.items())
             if name in fields and not stated_default_is(cell, fields[name])]
    problems = [*(f"{name}: no page documents it (add a row to docs/CONFIGURATION.md)" for name in undocumented),
                *(f"{name}: documented, but no Settings model has it" for name in unknown), *wrong]
    assert not problems, "\n".join(problems)


def test_the_default_rule_tells_a_wrong_default_from_the_right_one():
    fields = settings_fields()
    assert stated_default_is("8", fields["RAG_TOP_K"]) and not stated_default_is("10", fields["RAG_TOP_K"])
    run_worker = fields["RAG_RUN_WORKER"]
    assert stated_default_is("true", run_worker) and not stated_default_is("false", run_worker)
    assert stated_default_is("–", fields["RAG_API_TOKENS"]) and not stated_default_is("–", fields["RAG_TOP_K"])
    assert stated_default_is("(required)", fields["RAG_TELEGRAM_BOT_TOKEN"])
    assert not stated_default_is("(required)", fields["RAG_TELEGRAM_WEBHOOK_URL"])
    assert not stated_default_is("`./data/rag.db`", fields["RAG_DATABASE_URL"])


# The CLI: every `ragctl …` a page shows names a command and options it has; docs/OPERATIONS.md's "The CLI" lists
# every command with every option. The commands and options come from the click group itself.

OPERATIONS = ROOT / "docs" / "OPERATIONS.md"
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def cli_commands(group: click.Group = cli, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], set[str]]:
    """Every runnable command's path → its long options."""
    commands = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            commands.update(cli_commands(command, (*path, name)))
        else:
            commands[(*path, name)] = {o for p in command.params if isinstance(p, click.Option)
                                       for o in (*p.opts, *p.secondary_opts) if o.startswith("--")}
    return commands


def usage(words_and_rest: str) -> tuple[tuple[str, ...], list[str]] | None:
    """`oracle doctor [--json]` → (("oracle", "doctor"), ["--json"]): the longest run of leading lower-case words
    that names a command or group, and the options after it; None when the first word names nothing."""
    words = re.match(r"\s*((?:[a-z][a-z-]*\s*)*)", words_and_rest).group(1).split()
    node: click.Command = cli
    path: tuple[str, ...] = ()
    for word in words:
        if not isinstance(node, click.Group) or word not in node.commands:
            break
        node, path = node.commands[word], (*path, word)
    if not path:
        return None
    return path, OPTION.findall(words_and_rest)


def ragctl_usages(segment: str) -> list[tuple[str, tuple[str, ...] | None, list[str]]]:
    """Each `ragctl WORDS … --options` in a code span or a code line: (its text, the command, its options)."""
    found = []
    for part in re.split(r"(?<![\w-])ragctl(?=\s+[a-z])", segment)[1:]:
        parsed = usage(part)
        found.append((f"ragctl{part}".strip(), *(parsed or (None, []))))
    return found


def segments(path: Path) -> list[str]:
    prose, fenced = page_text(path)
    return [*code_spans(prose), *fenced]


def test_every_ragctl_line_the_pages_show_names_a_real_command_and_options():
    commands = cli_commands()
    wrong = []
    for page in [README, *PAGES]:
        for segment in segments(page):
            for text, path, options in ragctl_usages(segment):
                if path is None:
                    wrong.append(f"{page.name}: {text!r} names no ragctl command")
                elif path in commands:
                    wrong += [f"{page.name}: {text!r}: ragctl {' '.join(path)} has no {o}"
                              for o in options if o not in commands[path] | {"--help"}]
    assert not wrong, "\n".join(wrong)


def test_the_cli_section_of_operations_lists_every_command_with_every_option():
    documented: dict[tuple[str, ...], set[str]] = {}
    prose, fenced = page_text(OPERATIONS, "The CLI")
    for segment in [*code_spans(prose), *fenced]:
        segment = re.sub(r"^\S*ragctl\s+", "", segment.strip())
        parsed = usage(segment)
        if parsed:
            documented.setdefault(parsed[0], set()).update(parsed[1])
    missing = [f"ragctl {' '.join(path)}" + (f" {sorted(options - documented[path])}" if path in documented else "")
               for path, options in sorted(cli_commands().items())
               if path not in documented or options - documented[path]]
    assert not missing, f"commands or options docs/OPERATIONS.md's 'The CLI' does not list: {missing}"


# The endpoint table of docs/API.md: every row names routes the app answers, with query parameters and body
# fields it takes; every operation of the OpenAPI schema is in the table.

API_PAGE = ROOT / "docs" / "API.md"
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
QUERY_KEY = re.compile(r"(?:^|[&\[])&?([a-z_]+)=")
ENDPOINT = re.compile(r"^(?:([A-Z]+(?:/[A-Z]+)*)\s+)?(/[^\s?]*)(?:\?(\S*))?")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(Settings(database_url=f"sqlite:///{tmp_path_factory.mktemp('docs')}/rag.db"))


def expand(path: str) -> list[str]:
    """`/api/v1/{tasks,comments}/{id}` → one path per collection; `{id}` (no comma) is a path parameter."""
    match = re.search(r"\{([^}]*,[^}]*)\}", path)
    if not match:
        return [path]
    return [p for name in match.group(1).split(",")
            for p in expand(path[:match.start()] + name.strip() + path[match.end():])]


def shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def endpoint_rows() -> list[tuple[str, list[tuple[str, str, list[str]]]]]:
    """Each row of the endpoint table: (its 'what' cell, [(method, path, query keys)]); a path given without a
    method stands for every method it answers."""
    table = next(t for t in tables(prose_lines(API_PAGE)) if t[0][0] == "endpoint")
    rows = []
    for cells in table[1:]:
        endpoints = []
        for span in code_spans(cells[0]):
            if re.match(r"&?[a-z_]+=", span):  # `(or `telegram_id=`)`: another query key of the endpoint before
                endpoints[-1][2].extend(QUERY_KEY.findall(span))
                continue
            match = ENDPOINT.match(span)
            assert match, f"docs/API.md: {span!r} is not `METHOD[/METHOD] /path[?query]` nor `key=`"
            methods, path, query = match.groups()
            keys = QUERY_KEY.findall(query or "")
            endpoints += [(m, p, keys) for m in (methods.split("/") if methods else [None]) for p in expand(path)]
        rows.append((cells[1], endpoints))
    return rows


def answers(app, method: str | None, path: str) -> bool:
    concrete = re.sub(r"\{[^}]*\}", "1", path)
    return any(route.matches({"type": "http", "method": m, "path": concrete})[0] is Match.FULL
               for route in app.router.routes for m in ([method] if method else METHODS))


def test_every_endpoint_of_the_api_table_is_a_route_with_the_parameters_it_names(app):
    schema = app.openapi()
    wrong = []
    for what, endpoints in endpoint_rows():
        for method, path, keys in endpoints:
            if not answers(app, method, path):
                wrong.append(f"{method or 'any method'} {path}: no route answers it")
                continue
            operation = next((ops.get(method.lower()) for p, ops in schema["paths"].items()
                              if method and shape(p) == shape(path)), None)
            if operation is None:
                continue  # outside the schema (/metrics, /mcp): its route exists, checked above
            query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            wrong += [f"{method} {path}: no query parameter {k!r}" for k in keys if k not in query]
            body = re.match(r"`\{([^`]*)\}`", what)
            if body:
                ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                fields = set(schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"])
                named = set(re.findall(r"(?:^|[,|]\s*)([a-z_]+)\??", body.group(1)))
                if named != fields:
                    wrong.append(f"{method} {path}: the table names {sorted(named)}, the body has {sorted(fields)}")
    assert not wrong, "\n".join(wrong)


def test_every_operation_of_the_openapi_schema_is_in_the_api_table(app):
    documented = {(m, shape(p)) for _, endpoints in endpoint_rows() for m, p, _ in endpoints}
    missing = [f"{method.upper()} {path}" for path, ops in app.openapi()["paths"].items() for method in ops
               if (method.upper(), shape(path)) not in documented]
    assert not missing, f"operations docs/API.md's endpoint table does not list: {missing}"
