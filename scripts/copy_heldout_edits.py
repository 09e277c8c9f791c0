#!/usr/bin/env python
"""Copy the "phrasings" helper's held-out phrasings (issue 31) into app/evals/conversation_phrasings_edits_heldout.py,
unchanged: the templates and chains the demo can ask (LEFT_OUT: those it cannot), each phrasing as written. One
split only: e_urgent's variants whose second turn asks who reported the task (not when it is due; both are the
catalogue's e_urgent) go under "e_urgent_reporter", since their truth is another field. Nobody edits or tunes
on the copy; run this again when the helper's file changes.

Usage: .venv/bin/python scripts/copy_heldout_edits.py [/work/wt/phrasings-out/heldout_phrasings.json]
"""

from __future__ import annotations

import json
import pprint
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "app" / "evals" / "conversation_phrasings_edits_heldout.py"
LEFT_OUT = {"t_affects": "the demo has no affects versions", "t_depends": "the demo has no task links"}
REPORTED = re.compile(r"report|open|opened|filed|file|raised|creat|abri|abrió|levant|cre[oó]|quien la (puso|subi)",
                      re.IGNORECASE)
HEAD = '''"""HELD-OUT phrasings of the "edits" batch (issue 31), copied unchanged by scripts/copy_heldout_edits.py from
the file the "phrasings" helper wrote without reading any code or phrasing list ({source}). Engineers improving
the answers must not read this file nor tune on it. Left out (the demo cannot ask them): {left_out}.
"""

from __future__ import annotations

'''


def main() -> None:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/wt/phrasings-out/heldout_phrasings.json")
    data = json.loads(source.read_text())
    single = {k: {lang: tuple(v) for lang, v in by.items()} for k, by in data["single"].items() if k not in LEFT_OUT}
    chains: dict[str, dict[str, list]] = {}
    for chain, by in data["chains"].items():
        for lang, variants in by.items():
            for turns in variants:
                key = "e_urgent_reporter" if chain == "e_urgent" and REPORTED.search(turns[1]) else chain
                chains.setdefault(key, {}).setdefault(lang, []).append(tuple(turns))
    chains = {k: {lang: tuple(v) for lang, v in by.items()} for k, by in chains.items()}
    text = HEAD.format(source=source.name, left_out="; ".join(f"{k} ({why})" for k, why in LEFT_OUT.items()))
    text += "SINGLE: dict[str, dict[str, tuple[str, ...]]] = " + pprint.pformat(single, width=116, sort_dicts=False)
    text += "\n\nCHAINS: dict[str, dict[str, tuple[tuple[str, ...], ...]]] = " + \
        pprint.pformat(chains, width=116, sort_dicts=False) + "\n"
    TARGET.write_text(text)
    print(f"{TARGET}: {sum(len(v) for by in single.values() for v in by.values())} single phrasings, "
          f"{sum(len(v) for by in chains.values() for v in by.values())} chain variants")


if __name__ == "__main__":
    main()
