#!/usr/bin/env python
"""Chunking time against text length: linear chunking makes time(10x text) ≈ 10x time(text).

Shapes (each a document body chunked with the real WordPiece counter):
  * prose      - paragraphs of a few sentences (English and Spanish words);
  * paragraph  - the same prose as one giant paragraph (no blank line);
  * words      - one paragraph of short words with no sentence punctuation;
  * unbroken   - one "word" with no whitespace at all (a pasted blob);
  * cjk        - one run of CJK characters (every character is a word piece, no spaces);
  * base64     - one base64 blob (dense in word pieces, '+' and '/' split it).
It times the chunking algorithm itself (``pack`` over the document's paragraphs), without the
worker's cap on one entity's text (MAX_INDEXED_CHARS), so 1M characters are really chunked.
For each shape and size it reports the best of --repeat runs, and the ratios
time(100k)/time(10k) and time(1M)/time(100k) (linear ≈ 10, quadratic ≈ 100). Times are noisy on a
shared 2-core machine, so it also reports the work, which is not: the characters handed to the
tokenizer per character of text (constant when chunking is linear).
A shape whose previous size took longer than --budget seconds is not run at the next size
(today's quadratic code would take hours at 1M).
Writes a JSON result and appends rows to docs/BENCHMARKS.md (scripts/benchmarks_md.py).

Usage: .venv/bin/python scripts/bench_chunking.py [--sizes 10000,100000,1000000] [--label after]
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.records_model import DocSource
from app.embedding.tokens import count_tokens  # noqa: E402
from app.rag.chunking import pack  # noqa: E402
from app.rag.templates import body_sections, header_line  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402

WORDS = ("login invoice deploy database retro sprint bug cache api factura despliegue error timeout "
         "migración revisión añadir pequeño certificate onboarding backlog gateway").split()


def _prose_sentences(n_chars: int) -> list[str]:
    sentences, total, i = [], 0, 0
    while total < n_chars:
        words = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(8 + i % 9)]
        sentence = " ".join(words).capitalize() + (". " if i % 5 else "? ")
        sentences.append(sentence)
        total += len(sentence)
        i += 1
    return sentences


def make_text(shape: str, n: int) -> str:
    if shape == "prose":
        sentences = _prose_sentences(n)
        paragraphs = ["".join(sentences[i : i + 5]).strip() for i in range(0, len(sentences), 5)]
        return "\n\n".join(paragraphs)[:n]
    if shape == "paragraph":
        return "".join(_prose_sentences(n))[:n]
    if shape == "words":
        return " ".join(WORDS[i % len(WORDS)][:4] for i in range(n // 4))[:n]
    if shape == "unbroken":
        return ("abcdefghij0123456789" * (n // 20 + 1))[:n]
    if shape == "cjk":
        return "".join(chr(0x4E00 + (i * 37) % 20000) for i in range(n))
    if shape == "base64":
        return base64.b64encode(random.Random(n).randbytes(n))[:n].decode()
    raise ValueError(shape)


SHAPES = ("prose", "paragraph", "words", "unbroken", "cjk", "base64")


def time_chunking(text: str, repeat: int) -> tuple[float, int]:
    doc = DocSource(1, "Bench", text, None, None, None)
    best, chunks = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        chunks = len(pack(header_line(doc), body_sections(doc), count_tokens))
        best = min(best, time.perf_counter() - t0)
    return best, chunks


def tokenizer_work(text: str) -> float:
    """Characters the chunker hands to the tokenizer, per character of text."""
    handed = 0

    def counting(piece: str) -> int:
        nonlocal handed
        handed += len(piece)
        return count_tokens(piece)

    doc = DocSource(1, "Bench", text, None, None, None)
    pack(header_line(doc), body_sections(doc), counting)
    return round(handed / len(text), 3)


def run(sizes: list[int], shapes: list[str], repeat: int, budget: float) -> dict:
    count_tokens("warm up the tokenizer")
    results: dict[str, dict] = {}
    for shape in shapes:
        rows, skip = [], False
        for n in sizes:
            if skip:
                rows.append({"chars": n, "seconds": None, "chunks": None, "skipped": f"previous size > {budget} s"})
                continue
            text = make_text(shape, n)
            seconds, chunks = time_chunking(text, repeat)
            work = tokenizer_work(text) if seconds < budget else None
            rows.append({"chars": n, "seconds": round(seconds, 4), "chunks": chunks, "tokenizer_chars_per_char": work})
            print(f"{shape:10} {n:>9} chars  {seconds:8.3f} s  {chunks} chunks  work {work}", flush=True)
            skip = seconds > budget
        results[shape] = {"runs": rows, "ratios": ratios(rows)}
    return results


def ratios(rows: list[dict]) -> dict[str, float]:
    """time(next size)/time(size) for consecutive measured sizes, keyed 'a->b'."""
    out = {}
    for a, b in zip(rows, rows[1:]):
        if a["seconds"] and b["seconds"]:
            out[f"{a['chars']}->{b['chars']}"] = round(b["seconds"] / a["seconds"], 2)
    return out


def markdown_rows(result: dict) -> list[str]:
    date, label = result["date"][:10], result["label"]
    lines = []
    for shape, data in result["shapes"].items():
        for row in data["runs"]:
            if row["seconds"] is not None:
                lines.append(f"| {date} | chunking ({label}) | {row['chars']} chars | {shape}: seconds | "
                             f"{row['seconds']} | {row['chunks']} chunks; tokenizer chars per char "
                             f"{row.get('tokenizer_chars_per_char')} | - |")
        for step, ratio in data["ratios"].items():
            a, b = (int(x) for x in step.split("->"))
            lines.append(f"| {date} | chunking ({label}) | {step} chars | {shape}: time ratio | {ratio} | "
                         f"size ratio {b // a} (linear ≈ {b // a}) | {ratio / (b / a):.2f}× linear |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs")
    parser.add_argument("--budget", type=float, default=30.0, help="skip larger sizes after a run this slow (s)")
    parser.add_argument("--label", default="after", help="names the code measured, e.g. before/after")
    parser.add_argument("--out", default=None, help="default: docs/bench/bench_chunking_<label>.json")
    args = parser.parse_args()

    result = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()} {platform.python_version()}",
        "label": args.label,
        "shapes": run([int(n) for n in args.sizes.split(",")], args.shapes.split(","), args.repeat, args.budget),
    }
    out = Path(args.out or ROOT / "docs" / "bench" / f"bench_chunking_{args.label}.json")
    save_result(out, result)
    append_rows(markdown_rows(result))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
