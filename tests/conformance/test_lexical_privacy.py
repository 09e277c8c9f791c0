"""Nothing an asker cannot see moves what they see (DESIGN.md, Trust model), on both engines: the lexical
arm's term statistics are the asker's own, so adding or removing chunks hidden from them (other people's
tasks and documents, unassigned tasks) changes neither their lexical nor their hybrid ranking. Issue 26
point 6: a hidden task mentioning "layoffs" used to flip a developer's top-2 for "layoffs picnic"."""

from __future__ import annotations

import random

from app.domain import Scope
from app.entities import DOCUMENTS, TASKS
from app.services.search import resolve_caller, search
from tests.support import document, drain_all, employee, project, task

WORDS = ("layoffs", "picnic", "budget", "audit", "kiosk", "pallet", "ferry", "quorum", "mosaic", "lantern",
         "harbor", "cobalt", "meadow", "tundra", "saffron", "glacier")
FILLER = "routine weekly note about the office and the team"


def ranking(engine, caller, question, mode, scope=Scope(), k=10):
    return [(h.source_type, h.source_id) for h in search(engine, question, caller, k, scope, mode=mode).result.hits]


def test_a_hidden_chunk_holding_a_word_does_not_flip_a_developers_ranking(engine):
    """The issue's replay: the same hidden chunks that reorder a manager's top-2 (they are the manager's
    to see) leave the developer's top-2 as it was."""
    dev = employee(engine, "Dana", "Dev")
    other = employee(engine, "Omar", "Other")
    boss = employee(engine, "Mona", "Boss", role="MANAGER")
    a = document(engine, "Notice", "layoffs")
    b = document(engine, "Summer", "picnic at the lake with everyone")
    for i in range(12):
        document(engine, f"Note {i}", FILLER)
    drain_all(engine)
    developer, manager = resolve_caller(engine, dev), resolve_caller(engine, boss)
    before = ranking(engine, developer, "layoffs picnic", "lexical", k=2)
    hybrid_before = ranking(engine, developer, "layoffs picnic", "hybrid", k=5)
    assert before == ranking(engine, manager, "layoffs picnic", "lexical", k=2) == [("doc", a), ("doc", b)]
    for i in range(5):  # hidden from the developer: another's tasks and document, an unassigned task
        task(engine, f"Plan {i}", "layoffs layoffs in the spring", assignee_id=other if i % 2 else None)
    document(engine, "Omar's draft", "layoffs list", owner_id=other)
    drain_all(engine)
    assert ranking(engine, manager, "layoffs picnic", "lexical", k=2)[0] != ("doc", a)  # the word moved it
    assert ranking(engine, developer, "layoffs picnic", "lexical", k=2) == before
    assert ranking(engine, developer, "layoffs picnic", "hybrid", k=5) == hybrid_before


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) if rng.random() < 0.5 else rng.choice(FILLER.split()) for _ in range(n_words))


def test_random_hidden_chunks_never_change_any_askers_ranking(engine):
    """Rounds of random hidden writes (new tasks and documents of someone else, unassigned tasks, deletes of
    hidden rows) between which every asker's lexical and hybrid rankings of random questions, under random
    scopes, must stay exactly as they were."""
    rng = random.Random(26)
    askers = [employee(engine, f"Dev{i}", "Asker") for i in range(3)]
    outsider = employee(engine, "Hidden", "Owner")
    projects = [project(engine, f"Project {w}", _text(rng, 6)) for w in WORDS[:3]]
    for asker in askers:
        for _ in range(6):
            task(engine, _text(rng, 4), _text(rng, rng.randint(3, 30)), assignee_id=asker,
                 project_id=rng.choice([None, *projects]))
        document(engine, _text(rng, 3), _text(rng, rng.randint(5, 40)), owner_id=asker)
    for _ in range(15):
        document(engine, _text(rng, 3), _text(rng, rng.randint(5, 40)), project_id=rng.choice([None, *projects]))
    drain_all(engine)
    callers = [resolve_caller(engine, a) for a in askers]
    questions = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(12)]
    scopes = [Scope(), Scope(project=projects[0]), Scope(project="none"), Scope(source_types=("task",))]
    cases = list(dict.fromkeys((c, q, m, rng.choice(scopes)) for c in callers for q in questions
                               for m in ("lexical", "hybrid")))
    hidden: list[tuple[str, int]] = []
    compared = changed = 0
    for _ in range(4):
        before = {case: ranking(engine, *case) for case in cases}
        for _ in range(rng.randint(4, 8)):
            words = _text(rng, rng.randint(2, 25))
            if rng.random() < 0.6:
                hidden.append(("task", task(engine, _text(rng, 3), words, project_id=rng.choice([None, *projects]),
                                            assignee_id=rng.choice([None, outsider]))))
            else:
                hidden.append(("doc", document(engine, _text(rng, 3), words, owner_id=outsider)))
        for _ in range(min(len(hidden) // 3, 3)):
            source_type, source_id = hidden.pop(rng.randrange(len(hidden)))
            engine.delete(TASKS if source_type == "task" else DOCUMENTS, source_id)
        drain_all(engine)
        for case, expected in before.items():
            got = ranking(engine, *case)
            compared += 1
            changed += got != expected
            assert got == expected, case
    assert compared == 4 * len(cases) and changed == 0
    assert sum(1 for case in cases if before[case]) > len(cases) // 2  # the questions really matched
