"""The doctor's pure verdicts and rendering (app/rag/doctor.py): exit status, version, two-worker claims."""

from __future__ import annotations

import json

import pytest

from app.rag import doctor
from app.rag.doctor import CheckResult, claim_result, exit_code, render_json, render_text, version_result

SCRATCH = set(range(1, 9))


@pytest.mark.parametrize("version, status, ru", [
    ("23.26.0.0.0", "PASS", "23.26.0"), ("23.4.0.24.5", "PASS", "23.4.0"), ("23.3.0.0.0", "FAIL", "23.3.0"),
    ("19.24.0.0.0", "FAIL", "19.24.0"),
])
def test_version_needs_23_4_and_reports_the_release_update(version, status, ru):
    result = version_result(version)
    assert result.status == status and f"RU {ru}" in result.detail and result.needed


@pytest.mark.parametrize("version", [None, "", "23ai", "23.26.x"])
def test_an_unreadable_version_fails(version):
    assert version_result(version).status == "FAIL"


def test_two_full_disjoint_claims_pass():
    result = claim_result(4, [1, 2, 3, 4], [5, 6, 7, 8], {1, 2, 3, 4}, {5, 6, 7, 8}, SCRATCH)
    assert result.status == "PASS"
    assert result.detail.startswith("batch 4: worker A claimed 4 (locked 4 scratch rows), worker B claimed 4 (locked 4)")


def test_a_starved_second_worker_fails():
    # FACTS.md §6: a window of exactly the batch gives the second worker zero rows.
    result = claim_result(4, [1, 2, 3, 4], [], {1, 2, 3, 4}, set(), SCRATCH)
    assert result.status == "FAIL" and "starved" in result.detail and result.needed


def test_rows_claimed_twice_fail():
    assert claim_result(4, [1, 2, 3, 4], [4, 5, 6, 7], SCRATCH, set(), SCRATCH).status == "FAIL"


def test_locking_more_rows_than_returned_fails():
    # python-oracledb prefetch: execute + fetchmany(4) can lock the whole prefetch buffer (FACTS.md §6).
    result = claim_result(4, [1, 2, 3, 4], [5, 6, 7, 8], {1, 2, 3, 4, 5, 6}, {7, 8}, SCRATCH)
    assert result.status == "FAIL" and "prefetchrows" in result.detail


def test_short_but_disjoint_claims_only_warn():
    result = claim_result(4, [1, 2, 3], [5, 6], {1, 2, 3}, {5, 6}, SCRATCH)
    assert result.status == "WARN" and not result.needed


def test_only_needed_failures_change_the_exit_status():
    ok = CheckResult("a", "FACTS.md §1", "PASS", "fine")
    warn = doctor.warned("b", "FACTS.md §2", "fallback", "ORA-00932: x", "two-step")
    optional = doctor.failed("c", "FACTS.md §3", "diagnostic", needed=False)
    needed = doctor.failed("d", "FACTS.md §4", "broken", "ORA-04091: mutating")
    assert exit_code([ok, warn, optional]) == doctor.EXIT_OK
    assert exit_code([ok, warn, optional, needed]) == doctor.EXIT_FAILED


def test_text_has_one_line_per_check_with_its_section_error_and_fallback():
    results = [CheckResult("version", "FACTS.md §1", "PASS", "Oracle 23.26.0.0.0 (RU 23.26.0)"),
               doctor.warned("upsert", "FACTS.md §7", "refused", "ORA-00932: inconsistent datatypes\nHelp: url",
                             "two-step")]
    lines = render_text(results).splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("PASS  version") and "[FACTS.md §1]" in lines[0]
    assert lines[1].startswith("WARN  upsert") and "fallback: two-step" in lines[1]
    assert lines[1].endswith("error: ORA-00932: inconsistent datatypes")  # first line only
    assert lines[2] == "doctor: 2 checks, 0 needed failed, 0 needed skipped, 1 warnings; exit 0"


def test_strict_fails_on_a_skipped_needed_check_only():
    """`make test-oracle` runs `ragctl oracle doctor --strict`: a needed check that was skipped proved nothing."""
    ok = CheckResult("a", "FACTS.md §1", "PASS", "fine")
    skipped_optional = CheckResult("b", "FACTS.md §2", "SKIP", "no data", needed=False)
    skipped_needed = doctor.claim_skipped(3)
    assert exit_code([ok, skipped_optional, skipped_needed]) == doctor.EXIT_OK
    assert exit_code([ok, skipped_optional], strict=True) == doctor.EXIT_OK
    assert exit_code([ok, skipped_optional, skipped_needed], strict=True) == doctor.EXIT_FAILED
    lines = render_text([ok, skipped_needed], strict=True).splitlines()
    assert "(needed: unproven)" in lines[1]
    assert lines[-1] == "doctor: 2 checks, 0 needed failed, 1 needed skipped, 0 warnings; exit 1 (--strict)"
    assert "fails --strict" in render_text([ok, skipped_needed]).splitlines()[1]
    assert json.loads(render_json([ok, skipped_needed], strict=True))["exit_code"] == doctor.EXIT_FAILED


def test_display_cursor_text_that_says_the_plan_is_unreadable_is_recognised():
    assert doctor.plan_unreadable(["User has no SELECT privilege on V$SESSION"]) == (
        "User has no SELECT privilege on V$SESSION")
    assert doctor.plan_unreadable(["SQL_ID: 0w2qpuc6u2zsp, child number: 0 cannot be found "]).endswith("cannot be found")
    assert doctor.plan_unreadable(["| 2 |  TABLE ACCESS FULL | RAG_CHUNK |", "Plan hash value: 1234"]) is None


def test_json_carries_every_field_and_the_exit_status():
    data = json.loads(render_json([doctor.connection_failed(ConnectionRefusedError("refused"))], doctor.EXIT_NO_CONNECTION))
    assert data["exit_code"] == 2
    assert data["checks"][0] == {"name": "connect", "proves": "FACTS.md §9 (connect: host:port/service)",
                                 "status": "FAIL", "detail": "cannot connect to Oracle", "error": "refused",
                                 "fallback": None, "needed": True}
