"""`ragctl eval` end to end on a tiny BEIR collection made here, through the real SQLite engine."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli

DOCS = {
    "d1": ("Volcanoes", "Basaltic lava flows cool into columnar joints on the island's northern coast."),
    "d2": ("Sourdough", "A sourdough starter ferments flour and water with wild yeast and lactobacilli."),
    "d3": ("Orbits", "Geostationary satellites circle the Earth once per sidereal day above the equator."),
    "d4": ("Chess", "The Sicilian Defence answers the king's pawn opening with the c-pawn."),
    "d5": ("Tides", "The Moon's gravity raises two tidal bulges, so most coasts see two high tides a day."),
}
QUERIES = {"q1": DOCS["d2"][1], "q2": DOCS["d3"][1], "q3": "Why do coasts get two high tides a day?",
           "q9": "a query nobody judged"}
QRELS = [("q1", "d2", 2), ("q2", "d3", 1), ("q3", "d5", 2), ("q3", "d1", 0)]


def write_collection(tmp_path, qrels=QRELS, corpus_extra=""):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, (t, x) in DOCS.items())
                      + corpus_extra)
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps({"_id": i, "text": t}) + "\n" for i, t in QUERIES.items()))
    qrels_file = tmp_path / "qrels.tsv"
    qrels_file.write_text("query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in qrels))
    return ["--corpus", str(corpus), "--queries", str(queries), "--qrels", str(qrels_file)]


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, ["eval", *args], obj=CliEnv(sqlite_settings, sqlite_engine))

    return invoke


def test_eval_json_scores_every_mode_through_the_real_write_path(run, tmp_path):
    result = run(*write_collection(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert list(figures) == ["vector", "lexical", "hybrid"]
    for mode, f in figures.items():
        assert set(f) >= {"ndcg@10", "recall@10", "recall@100", "mrr@10", "queries", "query_ms_p50",
                          "query_ms_p95", "documents", "chunks", "indexing_docs_per_s"}, mode
        assert f["queries"] == 3 and f["documents"] == 5 and f["chunks"] >= 5  # q9 has no judgment
        assert f["recall@100"] == 1.0  # 5 documents: every relevant one is ranked somewhere
        assert 0 < f["query_ms_p50"] <= f["query_ms_p95"] and f["indexing_docs_per_s"] > 0
        assert 0.5 <= f["ndcg@10"] <= 1.0 and 0.5 <= f["mrr@10"] <= 1.0
    assert "querying (vector)" in result.stderr  # the progress bar goes to stderr, not into the JSON


def test_a_query_that_copies_its_document_scores_ndcg_1_in_vector_mode(run, tmp_path):
    result = run(*write_collection(tmp_path, qrels=[("q1", "d2", 2), ("q2", "d3", 1)]), "--mode", "vector", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert list(figures) == ["vector"]
    assert figures["vector"]["ndcg@10"] == 1.0 and figures["vector"]["mrr@10"] == 1.0
    assert figures["vector"]["recall@10"] == 1.0 and figures["vector"]["queries"] == 2


def test_limit_docs_keeps_only_queries_judged_on_loaded_documents(run, tmp_path):
    result = run(*write_collection(tmp_path), "--limit-docs", "3", "--mode", "hybrid")
    assert result.exit_code == 0, result.output
    assert "3 documents" in result.stdout and "2 judged queries" in result.stdout  # q3's d5 was not loaded
    assert result.stdout.splitlines()[-1].startswith("hybrid ")


def test_malformed_file_names_file_and_line_without_a_traceback(run, tmp_path):
    args = write_collection(tmp_path, corpus_extra='{"_id": "d6", "title": "broken"\n')
    result = run(*args)
    assert result.exit_code == 1
    assert f"{tmp_path / 'corpus.jsonl'}:6: not valid JSON" in result.stderr
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)  # a ClickException's exit


def test_lexical_mode_alone(run, tmp_path):
    result = run(*write_collection(tmp_path), "--mode", "lexical", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert list(figures) == ["lexical"]
    assert figures["lexical"]["mrr@10"] == 1.0  # q1 and q2 copy their documents' words; q3 shares "tides"


def test_a_kept_database_is_reused_and_a_different_corpus_is_refused(run, tmp_path):
    db = tmp_path / "kept.db"
    first = run(*write_collection(tmp_path), "--mode", "hybrid", "--db", str(db), "--json")
    assert first.exit_code == 0, first.output
    again = run(*write_collection(tmp_path), "--mode", "hybrid", "--db", str(db), "--json")
    assert again.exit_code == 0, again.output
    before, after = json.loads(first.stdout)["hybrid"], json.loads(again.stdout)["hybrid"]
    assert before["reused_documents"] == 0 and after["reused_documents"] == 5  # nothing embedded twice
    assert after["chunks"] == before["chunks"] and after["ndcg@10"] == before["ndcg@10"]
    other = tmp_path / "other"
    other.mkdir()
    args = write_collection(other)
    (other / "corpus.jsonl").write_text(json.dumps({"_id": "x", "title": "Other", "text": "Another corpus."}) + "\n"
                                        + (other / "corpus.jsonl").read_text())
    refused = run(*args, "--db", str(db))
    assert refused.exit_code == 1 and "other documents than this corpus" in refused.stderr
    assert "Traceback" not in refused.output


def test_no_judged_query_is_a_clear_error(run, tmp_path):
    result = run(*write_collection(tmp_path, qrels=[("q1", "d2", 0)]))
    assert result.exit_code == 1 and "no query in" in result.stderr


def test_an_empty_document_is_skipped_and_counted_not_an_abort(run, tmp_path):
    """Cranfield's document 471 has neither title nor text: the evaluation runs without it and says so."""
    empty = json.dumps({"_id": "471", "title": "", "text": " "}) + "\n"
    args = write_collection(tmp_path, corpus_extra=empty)
    result = run(*args, "--mode", "lexical", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["lexical"]
    assert figures["documents"] == 5 and figures["skipped_empty_documents"] == 1
    table = run(*args, "--mode", "lexical")
    assert table.exit_code == 0 and "1 empty document(s) skipped (neither title nor text)" in table.output
