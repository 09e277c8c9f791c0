"""``ragctl eval``: retrieval quality of the search modes as numbers, on a BEIR collection or on the
project golden set over the demo data (``--golden``)."""

from __future__ import annotations

import json
from pathlib import Path

import click
from tqdm import tqdm

from app.cli.root import CliEnv, cli, pass_env

MODE_CHOICES = ["vector", "lexical", "hybrid", "all"]
LLM_CHOICES = ["offline", "honest", "inventing", "all"]
FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@cli.command("eval")
@click.option("--corpus", type=FILE, help='BEIR corpus.jsonl: {"_id", "title", "text"} per line.')
@click.option("--queries", type=FILE, help='BEIR queries.jsonl: {"_id", "text"} per line.')
@click.option("--qrels", type=FILE, help="BEIR qrels TSV: header 'query-id corpus-id score', then graded judgments.")
@click.option("--golden", type=FILE, default=None,
              help="A golden set over the demo data (tests/data/golden_demo.jsonl; format: app/rag/golden.py) "
                   "instead of a BEIR collection.")
@click.option("--conversations", is_flag=True,
              help="The conversation benchmark over the demo data (app/services/conversation_bench.py) "
                   "instead of a retrieval evaluation: generated conversations asked through the chat, "
                   "every answer judged against a truth computed from the records.")
@click.option("--llm", "llm_mode", type=click.Choice(LLM_CHOICES), default="offline", show_default=True,
              help="With --conversations: answer offline (no LLM), with a loopback model on 127.0.0.1 that "
                   "is honest or invents an anchor, or all three in turn.")
@click.option("--sample", type=click.IntRange(1), default=None,
              help="With --conversations: only a fixed, seeded subset of at least N questions, stratified "
                   "by kind and language (make test holds the offline score of --sample 160).")
@click.option("--mode", type=click.Choice(MODE_CHOICES), default="all", show_default=True,
              help="Search mode(s) to score: vector, lexical, hybrid, or all three.")
@click.option("--limit-docs", type=click.IntRange(1), default=None,
              help="Load only the corpus's first N documents; queries without a relevant document among them are skipped.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Keep the indexed collection in this SQLite file instead of a temporary one; a later run "
                   "with the same corpus reuses it (or resumes an interrupted load) instead of re-embedding.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object keyed by mode.")
@pass_env
def eval_command(env: CliEnv, corpus: Path | None, queries: Path | None, qrels: Path | None, golden: Path | None,
                 conversations: bool, llm_mode: str, sample: int | None, mode: str, limit_docs: int | None,
                 db_path: Path | None, as_json: bool) -> None:
    """Score retrieval quality: nDCG@10, recall@10/@100 and MRR@10 per search mode (or, with
    --conversations, the chat's answers).

    The collection is indexed into a throw-away embedded (SQLite) database through the production
    write path (documents → triggers → queue → worker → chunks), whatever RAG_DATABASE_URL says
    (with --db: into that file, kept; the next run on it only scores, which takes seconds);
    every query with a relevant judgment is asked as a manager and scored at document level (a
    document counts at its best chunk). Also reports indexing docs/s and query p50/p95 ms
    (embedding + search). Progress goes to stderr. The results are also kept in
    RAG_EVAL_RESULTS_DIR (beir.json / golden.json), where the console's Quality page reads them.

    With --golden, the demo data is seeded the same way and every question is asked by each
    asker the file names (developers expect only what they may see): recall@5 and MRR@10 per mode,
    asker role and language, and how often the honest-answer rule answers.

    With --conversations, the demo data is seeded the same way and about 600 generated questions
    (templates x askers x projects x sprints x phrasings; a third Spanish; chains of follow-ups and
    scope changes) are asked through the chat in RAG_SEARCH_MODE (or --mode, when one mode is
    given); each answer is judged right, a
    right refusal or wrong against a truth computed from the records (leaks and wrong refusals
    counted apart), per mode of --llm, tuned vs held-out phrasings, language and kind.

    Example:

    \b
        ragctl eval --corpus scifact/corpus.jsonl --queries scifact/queries.jsonl \\
            --qrels scifact/qrels.tsv --limit-docs 1000 --json
        ragctl eval --golden tests/data/golden_demo.jsonl
        ragctl eval --conversations --llm all
    """
    from app.services import evaluation

    settings = env.get_settings()
    modes = list(evaluation.EVAL_MODES) if mode == "all" else [mode]
    beir = (corpus, queries, qrels)
    if conversations:
        if any(path is not None for path in beir) or golden is not None or limit_docs is not None \
                or db_path is not None:
            raise click.UsageError("--conversations cannot be combined with --corpus/--queries/--qrels/--golden/"
                                   "--limit-docs/--db")
        _conversations(env, llm_mode, sample, None if mode == "all" else mode, as_json)
        return
    if llm_mode != "offline" or sample is not None:
        raise click.UsageError("--llm and --sample apply to --conversations only")
    if golden is not None:
        if any(path is not None for path in beir) or limit_docs is not None or db_path is not None:
            raise click.UsageError("--golden cannot be combined with --corpus/--queries/--qrels/--limit-docs/--db")
        _golden(env, golden, modes, as_json)
        return
    if any(path is None for path in beir):
        raise click.UsageError("give --corpus, --queries and --qrels (a BEIR collection), or --golden FILE")
    # An injected engine (tests) lends its already-loaded model; otherwise the eval loads its own.
    embedder = getattr(env.engine, "embedder", None) if env.engine is not None else None
    source = {"corpus": str(corpus), "queries": str(queries), "qrels": str(qrels), "limit_docs": limit_docs}
    _report(lambda: evaluation.evaluate(evaluation.load_collection(corpus, queries, qrels, limit_docs), modes,
                                        embedder=embedder, progress=_bar, base=settings, db_path=db_path),
            as_json, _print_table, settings.eval_results_dir, "beir", source)


def _report(compute, as_json: bool, print_table, results_dir: str, kind: str, source: dict) -> None:
    """Run the evaluation and keep its results in RAG_EVAL_RESULTS_DIR (the console's Quality page); a
    malformed file (any line-oriented input) or an unusable collection is a clean CLI error."""
    from app.rag.jsonl import LineFormatError
    from app.services.evaluation import EvaluationError

    try:
        results = compute()
    except LineFormatError as exc:
        raise click.ClickException(f"malformed input: {exc}") from None
    except EvaluationError as exc:
        raise click.ClickException(str(exc)) from None
    from app.services import eval_results

    try:
        eval_results.save(results_dir, kind, source, results)  # type: ignore[arg-type]
    except OSError as exc:  # the figures are still printed: saving them is a convenience
        click.echo(f"warning: could not keep the results for the console in {results_dir}: {exc}", err=True)
    if as_json:
        click.echo(json.dumps(results))
        return
    print_table(results)


def _bar(desc: str, total: int) -> tqdm:
    return tqdm(total=total, desc=desc, unit="doc" if desc in ("loading", "indexing") else "query")


def _print_table(results: dict[str, dict]) -> None:
    first = next(iter(results.values()))
    skipped = first.get("skipped_empty_documents", 0)
    click.echo(f"{first['documents']} documents, {first['chunks']} chunks, indexed at "
               f"{first['indexing_docs_per_s']:.1f} docs/s; {first['queries']} judged queries"
               + (f"; {skipped} empty document(s) skipped (neither title nor text)" if skipped else ""))
    click.echo(f"{'mode':<8} {'nDCG@10':>8} {'R@10':>7} {'R@100':>7} {'MRR@10':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for name, r in results.items():
        click.echo(f"{name:<8} {r['ndcg@10']:>8.4f} {r['recall@10']:>7.4f} {r['recall@100']:>7.4f} "
                   f"{r['mrr@10']:>7.4f} {r['query_ms_p50']:>8.1f} {r['query_ms_p95']:>8.1f}")


def _golden(env: CliEnv, path: Path, modes: list[str], as_json: bool) -> None:
    from app.services import golden_eval

    embedder = getattr(env.engine, "embedder", None) if env.engine is not None else None
    _report(lambda: golden_eval.evaluate_golden(golden_eval.load_golden(path), modes, embedder=embedder,
                                                progress=_bar, base=env.get_settings()),
            as_json, _print_golden, env.get_settings().eval_results_dir, "golden", {"golden": str(path)})


def _print_golden(results: dict) -> None:
    click.echo(f"{results['questions']} questions ({', '.join(f'{n} {k}' for k, n in results['languages'].items())}), "
               f"{results['pairs']} question x asker pairs")
    click.echo(f"{'mode':<8} {'split':<18} {'pairs':>5} {'R@5':>7} {'MRR@10':>7}")
    for name, r in results["modes"].items():
        rows = [("all", r["all"])] + [(key, v) for split in ("by_role", "by_lang", "by_role_lang", "by_kind")
                                      for key, v in r[split].items()]
        for key, v in rows:
            click.echo(f"{name:<8} {key:<18} {v['pairs']:>5} {v['recall@5']:>7.4f} {v['mrr@10']:>7.4f}")
        h = r["honest"]
        click.echo(f"{name:<8} honest answers at {h['threshold']}: {h['expecting_answered']}/{h['expecting_pairs']} "
                   f"pairs with an answer answered; {h['unanswerable_answered']}/{h['unanswerable_pairs']} "
                   f"unanswerable answered; {h['nothing_visible_answered']}/{h['nothing_visible_pairs']} "
                   f"pairs expecting nothing answered")


def _conversations(env: CliEnv, llm_mode: str, sample: int | None, search_mode: str | None, as_json: bool) -> None:
    """The chat searches in --mode when one is given (not "all"), else in RAG_SEARCH_MODE."""
    from app.services import conversation_bench

    embedder = getattr(env.engine, "embedder", None) if env.engine is not None else None
    modes = list(conversation_bench.MODES) if llm_mode == "all" else [llm_mode]
    base = env.get_settings()
    if search_mode is not None:
        base = base.model_copy(update={"search_mode": search_mode})
    results = conversation_bench.evaluate_conversations(modes, embedder=embedder, progress=_bar, base=base,
                                                        min_turns=sample)
    if as_json:
        click.echo(json.dumps(results))
        return
    _print_conversations(results)


def _print_conversations(results: dict) -> None:
    click.echo(f"{results['questions']} questions in {results['conversations']} conversations "
               f"({results['chains']} chains; {results['languages']['es']} Spanish; "
               f"{results['parts']['heldout']} with held-out phrasings)")
    click.echo(f"{'mode':<10} {'split':<22} {'n':>4} {'right':>5} {'refus':>5} {'wrong':>5} {'leaks':>5} "
               f"{'wr.ref':>6} {'score':>6}")
    for name, r in results["modes"].items():
        rows = [("all", r["all"])] + [(key, v) for split in ("by_part", "by_lang", "by_family")
                                      for key, v in r[split].items()]
        for key, v in rows:
            click.echo(f"{name:<10} {key:<22} {v['questions']:>4} {v['right']:>5} {v['right_refusal']:>5} "
                       f"{v['wrong']:>5} {v['leaks']:>5} {v['wrong_refusals']:>6} {v['score']:>6.3f}")
