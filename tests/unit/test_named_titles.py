"""A record asked for by its title (app/rag/named.py): held word for word, set off in quotes or as a capitalised
run, and a named title that no visible record is about. Hits stand for what retrieval returned (visible)."""

from __future__ import annotations

from app.domain import SearchHit
from app.rag import named

ONBOARDING = "[DOC #1] Engineering onboarding guide\nWelcome to the team.\n\nClone the monorepo, run `make run`."
NOTES = "[DOC #6] 1:1 notes Ana / Maria\nAna wants to lead the offline sync design."
CRASH = ("[TASK #108] Investigate crash in the sales dashboard\nStatus: IN_PROGRESS\n"
         "Description: Crash reports show a null pointer in the sales dashboard.")
ANDROID = "[TASK #22] Refactor the Android build module\nStatus: IN_PROGRESS"
ANDROID_2 = "[TASK #127] Refactor the Android build module (part 2)\nStatus: TODO"
SPRINT = "[SPRINT #2] Mobile Sprint 2 (ACTIVE)\nGoal: Harden, test and prepare the release"
PEOPLE = frozenset({"ana", "garcia", "maria", "lopez"})


def hit(content: str) -> SearchHit:
    kind, number = content[1:].split("]", 1)[0].split(" #")
    return SearchHit({"DOC": "doc", "TASK": "task", "SPRINT": "sprint"}[kind], int(number), 0, content, 0.4, 0.6)


def test_a_title_held_word_for_word_names_its_record_whatever_the_case_and_punctuation():
    hits = [hit(CRASH), hit(NOTES), hit(ONBOARDING)]
    for question in ("summarise the 1:1 notes Ana / Maria", "summarise the 1-1 NOTES ana maria",
                     "¿qué dice el documento «1:1 notes Ana / Maria»?"):
        assert named.named(question, hits, lambda: PEOPLE).hit == hits[1], question


def test_the_longest_title_held_wins():
    hits = [hit(ANDROID), hit(ANDROID_2)]
    assert named.named("how is Refactor the Android build module (part 2) going?", hits).hit == hits[1]
    assert named.named("how is Refactor the Android build module going?", hits).hit == hits[0]


def test_a_quoted_or_capitalised_title_no_visible_record_is_about_is_named_back():
    hits = [hit(CRASH), hit(ANDROID)]
    for question in ("who is assigned to Investigate crash in the checkout page?",
                     "what is the status of \"Investigate crash in the checkout page\"?",
                     "how is the task Investigate crash in the checkout page going?"):
        assert named.named(question, hits) == named.Named(phrase="Investigate crash in the checkout page"), question


def test_a_phrase_a_visible_record_holds_is_not_refused():
    """"the Android build module" is part of two visible titles: a topic the free-text answer reads, not one
    record and not "nothing is about it"."""
    hits = [hit(ANDROID), hit(ANDROID_2)]
    assert named.named("what is wrong with the Android build module?", hits) is None
    assert named.named("what is happening with Refactor Android build?", hits) is None


def test_a_persons_name_opens_no_title_and_sprints_are_not_matched_by_title():
    hits = [hit(NOTES), hit(SPRINT)]
    assert named.named("what does Ana want to lead?", hits, lambda: PEOPLE) is None
    assert named.named("what is the goal of Mobile Sprint 2 (ACTIVE)?", hits) is None
    assert named.title_phrase("what does Ana want to lead?", lambda: PEOPLE) is None
    assert named.title_phrase("what does the Personal notes: warehouse cost ideas say?") == \
        "Personal notes: warehouse cost ideas"


def test_people_are_asked_for_only_when_a_capitalised_run_needs_them():
    asked = []

    def people():
        asked.append(1)
        return PEOPLE

    named.named("what is the release cadence?", [hit(ONBOARDING)], people)
    assert asked == []
