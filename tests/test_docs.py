"""The README stays a short front page and every documentation link leads somewhere: each relative link names a
file that exists, each #anchor a heading of that file (GitHub's slug rule), and every page under docs/ is reachable
from the README."""
import re
from pathlib import Path

import pytest

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
