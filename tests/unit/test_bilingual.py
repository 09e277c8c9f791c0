"""The Spanish–English glossary (app/rag/bilingual.py): what the lexical arm searches for a Spanish question,
and a record's words widened to their equivalents for the answer's word checks."""

from __future__ import annotations

from app.rag import bilingual, terms


def test_a_spanish_question_searches_its_words_then_their_english_equivalents():
    query = bilingual.lexical_query("¿cuántas aprobaciones necesita el código de pagos?")
    assert query.startswith("¿cuántas aprobaciones necesita el código de pagos?")
    added = query.removeprefix("¿cuántas aprobaciones necesita el código de pagos?").split()
    assert {"approvals", "code", "payments"} <= set(added) and len(added) == len(set(added))


def test_an_english_question_is_searched_as_it_is():
    for question in ("how often do releases happen?", "what is the payments code review rule?"):
        assert bilingual.lexical_query(question) == question


def test_widening_goes_both_ways_and_keeps_the_stems():
    english = {terms.stem(w) for w in ("Releases", "happen", "every", "Thursday")}
    widened = bilingual.widen(english)
    assert english <= widened and {terms.stem("lanzamiento"), terms.stem("cada"), terms.stem("jueves")} <= widened
    assert terms.stem("release") in bilingual.widen({terms.stem("lanzamientos")})
    assert bilingual.widen({"zzzzz"}) == {"zzzzz"}  # a word the glossary lacks is itself only
