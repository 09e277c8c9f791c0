"""The one pipeline every source runs: fetch pages → map (the source's module) → upsert → reconcile.

Upserts go through the record path the API uses (app/services/records.py → the engine's create/update/
delete), so the tables' triggers queue re-indexing and access changes at once. Every row an import writes
carries SOURCE and its key in the tracker (EXTERNAL_KEY, EXTERNAL_ID for a person): a row is found again by
them, compared column by column, and written only when something differs — a second import of the same
data writes nothing, queues nothing and re-embeds nothing.

The cursor of a source (SYNC_CURSORS) is the newest update time of the issues already written, stored after
each page is committed: a pass that dies between pages resumes from the last committed page (the overlap
re-reads a few unchanged issues, which write nothing), so nothing is skipped and nothing is doubled. An
issue that fails to write holds the cursor at its own update time, so the next pass tries it again.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app import metrics
from app.domain import Role
from app.records_model import TaskLink
from app.engines import task_values
from app.engines.base import ConflictError, Engine, RecordsTx
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS, Condition, EntitySpec
from app.services import records
from app.sources import checks, mapping, report
from app.sources.model import FailedIssue, SourceIssue, SourcePerson, SourceProject, SourceSprint, SyncCounts
from app.sources.people import PeopleMap, as_people_map

log = logging.getLogger(__name__)

READ_AHEAD = 500  # keys per find_by_external call (an IN list well under both engines' bind limits)


class IssueSource(Protocol):
    """What a tracker module offers the pipeline."""

    @property
    def source(self) -> str: ...  # "jira:https://acme.atlassian.net", "github:octo/repo"

    def pages(self, since: dt.datetime | None) -> Iterator[list[SourceIssue | FailedIssue]]: ...

    def all_keys(self) -> set[str]: ...


class ReconcileRefusedError(RuntimeError):
    """The tracker listed no issue at all while some are imported: nothing is deleted (a wrong project list or a
    lost permission must not empty the index)."""


@dataclass
class PageWriter:
    """Writes pages of one source, each in one transaction of the engine (``Engine.batch()``) with the cursor
    it allows. Ids found are remembered for the writer's life (one pass); a page that fails forgets them."""

    engine: Engine
    source: str
    roles: PeopleMap = field(default_factory=PeopleMap)  # the people mapping file: account id → role, confirmed e-mails
    _ids: dict[tuple[str, str], int] = field(default_factory=dict)
    _absent: set[tuple[str, str]] = field(default_factory=set)  # keys the page's pre-read did not find
    _stored_comments: dict[int, dict[str, int]] = field(default_factory=dict)  # task → its imported comments
    _comment_rows: dict[int, dict[str, Any]] = field(default_factory=dict)  # those comments' rows, by id
    _matched: set[str] = field(default_factory=set)  # accounts the people map confirms as team members (as they are)
    _email_taken: set[str] = field(default_factory=set)  # accounts giving another employee's e-mail: not stored
    _seen_people: set[str] = field(default_factory=set)  # people already compared in this pass
    # Links whose target was not imported when their task was written: target key → (task, its links), so the
    # task's links are replaced again (and take the target's id) once the target is written in this pass.
    _unresolved: dict[str, dict[int, list[TaskLink]]] = field(default_factory=dict)
    _orphans: dict[str, set[int]] = field(default_factory=dict)  # parent key not written yet → its children
    _held: dt.datetime | None = None  # the update time of the first issue of this pass that failed to write
    _queue_mark: int | None = None  # the newest queue row when the pass began: the pass coalesces what came after

    def write(self, issues: Sequence[SourceIssue | FailedIssue], keep_cursor: dt.datetime | None = None,
              store_cursor: bool = True) -> tuple[SyncCounts, dt.datetime | None]:
        """Write one page and, with ``store_cursor``, the cursor it allows (``_cursor``; ``keep_cursor`` is the one
        stored) in the same transaction; the counts and that cursor (None: nothing new to follow). An issue that
        could not be read, or that no engine would store (checks.problem), fails alone before anything is written:
        counted, named, and holding the cursor; the rest of the page — access changes among it — is written."""
        counts, newest, held = SyncCounts(), None, None
        page: list[SourceIssue] = []
        for issue in issues:
            why = issue.error if isinstance(issue, FailedIssue) else checks.problem(issue)
            if why is None:
                page.append(checks.bounded(issue))  # type: ignore[arg-type]
                continue
            held = _fail(counts, self.source, issue.key, why, issue.updated, held)
        remembered = dict(self._ids)
        self._read_ahead(page)
        try:
            with self.engine.batch() as tx:
                if self._queue_mark is None:
                    self._queue_mark = tx.queue_mark()
                for issue in page:
                    try:
                        changed = self._write_issue(tx, issue)
                    except (ValueError, ConflictError) as exc:  # refused by the engine: the page goes on
                        held = _fail(counts, self.source, issue.key, str(exc), issue.updated, held)
                        continue
                    setattr(counts, changed, getattr(counts, changed) + 1)
                    newest = issue.updated if newest is None else max(newest, issue.updated)
                self._resolve_links(tx, [issue.key for issue in page])
                self._resolve_parents(tx, [issue.key for issue in page])
                # a task and its comments, links and sprints, and a task re-linked by a later page: one queue row
                tx.coalesce_queued(self._queue_mark)
                if held is not None:
                    self._held = held if self._held is None else min(self._held, held)
                cursor = self._cursor(newest, keep_cursor)
                if store_cursor and cursor is not None:
                    tx.set_sync_cursor(self.source, cursor.isoformat())
        except BaseException:
            self._ids = remembered  # the rows of this page were rolled back with it
            self._seen_people.clear()
            self._unresolved.clear()
            self._orphans.clear()
            raise
        return counts, cursor

    def _cursor(self, newest: dt.datetime | None, stored: dt.datetime | None) -> dt.datetime | None:
        """The cursor after a page: its newest issue, never behind the stored one — unless an issue of this pass
        failed: then just before the first failed one, for the rest of the pass, even behind the stored cursor,
        so the next pass reads it again (the issues after it re-read as unchanged)."""
        if self._held is not None:
            return self._held - dt.timedelta(microseconds=1)
        if newest is None or (stored is not None and newest <= stored):
            return None
        return newest

    def _read_ahead(self, issues: Sequence[SourceIssue]) -> None:
        """Before the page's transaction, in a few reads: which tasks, comments and people exist already, the
        imported comments of each existing task, and the team members a new person matches by e-mail."""
        self._absent = set()
        people = {p.external_id: p for i in issues
                  for p in (i.assignee, i.reporter, i.resolved_by, *(c.author for c in i.comments)) if p is not None}
        for entity, keys in ((TASKS, [*(i.key for i in issues), *(i.parent_key for i in issues if i.parent_key)]),
                             (COMMENTS, [c.external_id for i in issues for c in i.comments]),
                             (EMPLOYEES, list(people))):
            wanted = [k for k in dict.fromkeys(keys) if (entity.name, k) not in self._ids]
            for part in range(0, len(wanted), READ_AHEAD):
                found = self.engine.find_by_external(entity, self.source, wanted[part:part + READ_AHEAD])
                self._ids.update({(entity.name, k): v for k, v in found.items()})
                self._absent.update((entity.name, k) for k in wanted[part:part + READ_AHEAD] if k not in found)
        self._stored_comments, self._comment_rows = {}, {}
        for issue in issues:
            task_id = self._ids.get((TASKS.name, issue.key))
            if task_id is not None:
                rows = _rows_where(self.engine, COMMENTS, [Condition("task_id", "TASK_ID", "eq", task_id)])
                mine = [r for r in rows if r.get("source") == self.source]
                self._stored_comments[task_id] = {r["external_key"]: r["comment_id"] for r in mine}
                self._comment_rows.update({r["comment_id"]: r for r in mine})
        for ext, person in people.items():
            if (EMPLOYEES.name, ext) in self._absent:
                self._match_confirmed(ext, person)

    def _match_confirmed(self, ext: str, person: SourcePerson) -> None:
        """A person not imported yet: the team member whose e-mail the people map confirms for this account id is
        this person (used as they are); any other e-mail is information only — never an identity, so it is not
        stored where another employee already has it (people.py)."""
        confirmed = self.roles.confirmed_email(ext)
        wanted = confirmed or person.email
        if not wanted:
            return
        match = self.engine.list_records(EMPLOYEES, [Condition("email", "EMAIL", "eq_ci", wanted)], None, 1)
        if match.items and confirmed:
            self._ids[(EMPLOYEES.name, ext)] = match.items[0]["employee_id"]
            self._matched.add(ext)
        elif match.items:
            self._email_taken.add(ext)
            log.warning("%s: account %s gives the e-mail of employee %s; it is imported as a person of its own, "
                        "without that e-mail (confirm it in RAG_SOURCES_PEOPLE_FILE if it is them)", self.source, ext,
                        match.items[0]["employee_id"])

    # --- one issue ---------------------------------------------------------------------------
    def _write_issue(self, tx: RecordsTx, issue: SourceIssue) -> str:
        """"created", "updated" or "unchanged"."""
        values, sprint_ids, touched = self._task_values(tx, issue)
        task_id, outcome = self._upsert(tx, TASKS, issue.key, values)
        touched |= bool(tx.replace_task_sprints(task_id, sprint_ids))
        touched |= tx.set_task_restricted(task_id, issue.restricted)  # a level removed in the tracker clears it
        if issue.parent_key is not None and values["PARENT_ID"] is None:
            self._orphans.setdefault(issue.parent_key, set()).add(task_id)
        touched |= self._comments(tx, task_id, issue)
        links = [TaskLink(link.link_type, link.target_key) for link in issue.links]
        touched |= bool(tx.replace_task_links(task_id, links))
        for link in links:
            if self._ids.get((TASKS.name, link.target_key)) is None:
                self._unresolved.setdefault(link.target_key, {})[task_id] = links
        return "updated" if outcome == "unchanged" and touched else outcome

    def _task_values(self, tx: RecordsTx, issue: SourceIssue) -> tuple[dict[str, Any], list[int], bool]:
        """The TASKS columns of an issue, the ids of every sprint it was in (TASK_SPRINTS: the latest among them),
        and whether writing the rows they name (project, sprints, people) changed anything. Multi-valued fields are
        lists in the engines' order, so a stored row compares equal."""
        project_id, touched = self._project(tx, issue.project)
        sprint_id, sprint_ids = None, []
        for sprint in dict.fromkeys((*issue.sprints, *((issue.sprint,) if issue.sprint is not None else ()))):
            row_id, sprint_touched = self._sprint(tx, sprint, project_id)
            touched |= sprint_touched
            sprint_ids.append(row_id)
            if sprint == issue.sprint:
                sprint_id = row_id
        people = {}
        for column, person in (("ASSIGNEE_ID", issue.assignee), ("REPORTER_ID", issue.reporter),
                               ("RESOLVED_BY_ID", issue.resolved_by)):
            people[column], person_touched = self._person(tx, person)
            touched |= person_touched
        parent_id = None if issue.parent_key is None else self._find(tx, TASKS, issue.parent_key)
        values = {
            "TITLE": issue.title, "DESCRIPTION": issue.description or None, "STATUS": issue.status,
            "PRIORITY": issue.priority, "PRIORITY_NAME": issue.priority_name, "PRIORITY_RANK": issue.priority_rank,
            "SPRINT_ID": sprint_id, "PROJECT_ID": project_id, **people,
            "STORY_POINTS": issue.story_points, "EXPECTED_END_DATE": issue.due, "ISSUE_TYPE": issue.issue_type,
            "STATUS_NAME": issue.status_name, "CREATED_AT": issue.created, "UPDATED_AT": issue.updated,
            "RESOLVED_AT": issue.resolved, "RESOLUTION": issue.resolution, "ENVIRONMENT": issue.environment,
            "PARENT_KEY": issue.parent_key, "PARENT_ID": parent_id,
        }
        for column, given in (("LABELS", issue.labels), ("FIX_VERSIONS", issue.fix_versions),
                              ("COMPONENTS", issue.components), ("AFFECTS_VERSIONS", issue.affects_versions)):
            values[column] = list(task_values.normalise(given, column))
        return values, list(dict.fromkeys(sprint_ids)), touched

    def _resolve_parents(self, tx: RecordsTx, keys: Sequence[str]) -> None:
        """Tasks written before their parent, whose parent this page wrote: given its id now."""
        for key in keys:
            parent_id = self._ids.get((TASKS.name, key))
            if parent_id is not None:
                for child in self._orphans.pop(key, ()):
                    tx.update(TASKS, child, {"PARENT_ID": parent_id})

    def _resolve_links(self, tx: RecordsTx, keys: Sequence[str]) -> None:
        """Links written before their target, whose target this page wrote: replaced again, now with its id."""
        for key in keys:
            if (TASKS.name, key) in self._ids:
                for task_id, links in self._unresolved.pop(key, {}).items():
                    tx.replace_task_links(task_id, links)

    def _upsert(self, tx: RecordsTx, entity: EntitySpec, key: str, values: dict[str, Any],
                on_create: Mapping[str, Any] | None = None) -> tuple[int, str]:
        """(id, "created" / "updated" / "unchanged") of the row of this source with this key; ``on_create``:
        values only a new row gets (a role, a status the team may edit afterwards)."""
        row_id = self._find(tx, entity, key)
        if row_id is None:
            row = tx.create(entity, {**values, **(on_create or {}), "SOURCE": self.source, entity.external: key})
            row_id = row[entity.pk.lower()]
            self._ids[(entity.name, key)] = row_id
            return row_id, "created"
        # A comment read ahead with its task is compared with that row (the page's one read of its thread).
        known = self._comment_rows.pop(row_id, None) if entity is COMMENTS else None
        current = known if known is not None else (tx.get(entity, row_id) or {})
        changed = {k: v for k, v in values.items() if not _same(current.get(k.lower()), v)}
        if not changed:
            return row_id, "unchanged"
        tx.update(entity, row_id, changed)
        if entity is TASKS and "ASSIGNEE_ID" in changed:
            metrics.ACCESS_REVOCATIONS.inc()  # as the API counts a reassignment (app/services/records.py)
        return row_id, "updated"

    def _find(self, tx: RecordsTx, entity: EntitySpec, key: str) -> int | None:
        cached = self._ids.get((entity.name, key))
        if cached is not None or (entity.name, key) in self._absent:
            return cached
        found = tx.find_by_external(entity, self.source, [key]).get(key)
        if found is not None:
            self._ids[(entity.name, key)] = found
        return found

    def _project(self, tx: RecordsTx, project: SourceProject) -> tuple[int, bool]:
        if (PROJECTS.name, project.key) in self._ids:
            return self._ids[(PROJECTS.name, project.key)], False
        row_id, outcome = self._upsert(tx, PROJECTS, project.key,
                                       {"NAME": project.name, "DESCRIPTION": project.description},
                                       on_create={"STATUS": "ACTIVE"})
        return row_id, outcome != "unchanged"

    def _sprint(self, tx: RecordsTx, sprint: SourceSprint, project_id: int) -> tuple[int, bool]:
        if (SPRINTS.name, sprint.external_id) in self._ids:
            return self._ids[(SPRINTS.name, sprint.external_id)], False
        values = {"NAME": sprint.name, "STATUS": sprint.status, "GOAL": sprint.goal, "START_DATE": sprint.start_date,
                  "END_DATE": sprint.end_date}
        if sprint.start_date and sprint.end_date and sprint.end_date < sprint.start_date:
            values["END_DATE"] = None  # the table refuses an end before the start; Jira does not
        # A sprint stays with the project it was first seen in (a board may span several projects).
        row_id, outcome = self._upsert(tx, SPRINTS, sprint.external_id, values, on_create={"PROJECT_ID": project_id})
        return row_id, outcome != "unchanged"

    def _person(self, tx: RecordsTx, person: SourcePerson | None) -> tuple[int | None, bool]:
        """The employee of a tracker user: found by their account id (their row of this source), or the team member
        the people map confirms for that id (left as they are), else created as a DEVELOPER (or the role the map
        names for that id). Nothing a tracker's user may edit (name, e-mail) decides who they are or their role."""
        if person is None:
            return None, False
        if person.external_id in self._matched or person.external_id in self._seen_people:
            return self._ids[(EMPLOYEES.name, person.external_id)], False
        first, last = mapping.split_name(person.display_name, person.external_id)
        values = {"FIRST_NAME": first, "LAST_NAME": last}
        if person.email and person.external_id not in self._email_taken:
            values["EMAIL"] = person.email[:320]
        # The role is the team's to edit afterwards: set once, never overwritten.
        role = self.roles.role(person.external_id) or Role.DEVELOPER
        row_id, outcome = self._upsert(tx, EMPLOYEES, person.external_id, values, on_create={"ROLE": role.value})
        self._seen_people.add(person.external_id)
        return row_id, outcome != "unchanged"

    def _comments(self, tx: RecordsTx, task_id: int, issue: SourceIssue) -> bool:
        """The task's imported comments made equal to the issue's: edited ones updated, new ones added, ones
        deleted in the tracker deleted (comments written here by other clients are left alone)."""
        touched = False
        wanted = set()
        for comment in issue.comments:
            author_id, person_touched = self._person(tx, comment.author)
            touched |= person_touched
            wanted.add(comment.external_id)
            values = {"TASK_ID": task_id, "AUTHOR_ID": author_id, "BODY": comment.body or "-",
                      "CREATED_AT": comment.created_at.isoformat(timespec="seconds") if comment.created_at else None}
            _, outcome = self._upsert(tx, COMMENTS, comment.external_id, values)
            touched |= outcome != "unchanged"
        for key, comment_id in self._stored_comments.get(task_id, {}).items():
            if key not in wanted:
                tx.delete(COMMENTS, comment_id)
                self._ids.pop((COMMENTS.name, key), None)
                touched = True
        return touched


def _fail(counts: SyncCounts, source: str, key: str, why: str, when: dt.datetime | None,
          held: dt.datetime | None) -> dt.datetime | None:
    """Count and name one failed issue; the earliest time a failure holds the cursor at."""
    key, why = (key if len(key) <= 60 else key[:57] + "..."), why[:300]
    log.warning("%s %s not written: %s", source, key, why)
    counts.failed += 1
    counts.errors.append(f"{key}: {why}")
    if when is None:
        return held
    return when if held is None else min(held, when)


def _rows_where(engine: Engine, entity: EntitySpec, where: Sequence[Condition]) -> Iterator[dict[str, Any]]:
    after = None
    while True:
        page = engine.list_records(entity, where, after, records.MAX_PAGE)
        yield from page.items
        if not page.more:
            return
        after = page.items[-1][entity.pk.lower()]


def _same(stored: Any, wanted: Any) -> bool:
    if isinstance(wanted, float) and isinstance(stored, (int, float)):
        return float(stored) == wanted
    if isinstance(wanted, dt.date) and isinstance(stored, str):
        return stored[:10] == wanted.isoformat()
    return stored == wanted


# --- a pass -------------------------------------------------------------------------------------

def cursor_time(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        log.warning("ignoring an unreadable sync cursor %r: the pass reads everything", value)
        return None


def run_pass(engine: Engine, source: IssueSource, *, overlap: dt.timedelta, reconcile: bool,
             roles: Mapping[str, Role] | None = None,
             on_page: Callable[[SyncCounts], None] | None = None) -> SyncCounts:
    """One incremental pass: every page since the stored cursor (less the overlap), the cursor stored after
    each; then, with ``reconcile``, the deletions (issues gone from the tracker or moved out of its projects).
    The pass is kept as the source's last for ``ragctl status`` (report.py), the error that ended it included."""
    writer = PageWriter(engine, source.source, as_people_map(roles))
    since = cursor_time(engine.sync_cursor(source.source))
    total = SyncCounts()
    try:
        for page in source.pages(None if since is None else since - overlap):
            counts, cursor = writer.write(page, keep_cursor=since)
            if cursor is not None:
                since = cursor
            total.add(counts)
            if on_page is not None:
                on_page(counts)
        if reconcile:
            total.deleted += reconcile_deletions(engine, source.source, source.all_keys())
    except Exception as exc:
        report.record_pass(engine, source.source, total, f"{type(exc).__name__}: {exc}")
        raise
    report.record_pass(engine, source.source, total)
    return total


def import_issues(engine: Engine, source_name: str, issues: Iterable[SourceIssue | FailedIssue], *, page_size: int = 100,
                  roles: Mapping[str, Role] | None = None,
                  on_page: Callable[[SyncCounts], None] | None = None) -> SyncCounts:
    """Write issues read from files (no cursor: a file import is whole each time, and idempotent)."""
    writer = PageWriter(engine, source_name, as_people_map(roles))
    total, page = SyncCounts(), []
    for issue in issues:
        page.append(issue)
        if len(page) == page_size:
            total.add(writer.write(page, store_cursor=False)[0])
            if on_page is not None:
                on_page(total)
            page = []
    if page:
        total.add(writer.write(page, store_cursor=False)[0])
        if on_page is not None:
            on_page(total)
    report.record_pass(engine, source_name, total)
    return total


def reconcile_deletions(engine: Engine, source: str, keys_now: set[str]) -> int:
    """Delete this source's tasks whose key the tracker no longer lists; the number deleted."""
    stored = [(row["task_id"], row["external_key"])
              for row in _rows_where(engine, TASKS, [Condition("source", "SOURCE", "eq", source)])]
    if stored and not keys_now:
        raise ReconcileRefusedError(f"{source} listed no issue at all while {len(stored)} are imported: nothing "
                                    "deleted (check the project list and the account's permissions)")
    gone = [task_id for task_id, key in stored if key not in keys_now]
    for task_id in gone:
        records.delete_record(engine, TASKS, task_id)
    return len(gone)
