"""How the in-process MiniLM cuts texts into ONNX runs (pure: no model is loaded)."""

from __future__ import annotations

import pytest

from app.embedding.onnx_minilm import MAX_ATTENTION_CELLS, MAX_SEQ_LENGTH, runs

FULL = MAX_SEQ_LENGTH


@pytest.mark.parametrize("widths,max_rows,expected", [
    ([], 32, []),
    ([10] * 5, 32, [range(0, 5)]),
    ([10] * 70, 32, [range(0, 32), range(32, 64), range(64, 70)]),  # short texts: the row cap
    ([FULL] * 10, 32, [range(0, 4), range(4, 8), range(8, 10)]),  # full-length chunks: four a run
    ([FULL // 2] * 20, 32, [range(0, 16), range(16, 20)]),  # half the width: four times the rows
    ([8, 8, 8, FULL, FULL], 32, [range(0, 4), range(4, 5)]),  # padded to its widest row: 4 x FULL^2 fits
    ([FULL * 4], 32, [range(0, 1)]),  # one row is always allowed
])
def test_runs(widths, max_rows, expected):
    assert runs(widths, max_rows) == expected


def test_every_run_stays_within_the_attention_budget():
    widths = sorted([3, 17, 40, 64, 64, 100, 128, 200, 255, 256, 256, 256, 256, 256] * 7)
    cut = runs(widths, 32)
    assert [i for r in cut for i in r] == list(range(len(widths)))  # every text once, in order
    for r in cut:
        assert len(r) <= 32 and (len(r) == 1 or len(r) * widths[r[-1]] ** 2 <= MAX_ATTENTION_CELLS)
