"""Follow-up questions: does a question name a topic of its own, and what to retrieve for one that does
not. Pure: no I/O.

"who is assigned to it?", "what is blocking it?", "¿cuándo vence?", "¿y quién lo tiene?" name nothing
but the field they ask for: they are about the conversation's focus (app/services/chat.py keeps it),
however many turns ago it was set. With an LLM, ``condensation_messages`` asks it to rewrite the question
as a standalone search query, and tells it what the conversation is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from app.rag import terms

MAX_CARRIED_TERMS = 12
MAX_TRANSCRIPT_CHARS = 4_000  # the condensation call only needs the recent turns

# Words that point back at something already said ("it", "that task", "lo", "esa").
_POINTING = frozenset(terms.fold(w) for w in """
it its it's that this those these them they one ones there same
lo la los las le les eso esa ese esas esos esto esta este ello alli ahi mismo misma
""".split())
_THAT_ONE = re.compile(r"(?<![\w-])(?:that|this) ones?(?![\w-])")
# "there" and "this"/"esta" that point at nothing said before: "are there any open tasks?", "due this week".
_NOT_POINTING = re.compile(
    r"\b(?:is|are|was|were|any|anything)\s+there\b|\bthere\s+(?:is|are|was|were)\b"
    r"|\b(?:this|that|next|last)\s+(?:week|month|year|sprint|iteration|morning|afternoon)\b"
    r"|\b(?:esta|este|la\s+proxima|el\s+proximo)\s+(?:semana|mes|ano|sprint|iteracion|manana|tarde)\b")
_ESTAR = re.compile(r"(?<![\w-])est[áé]n?(?![\w-])")
# Stems of the words that ask for a field of an entity rather than name a topic ("blocking", "vence"),
# and of the verbs a question about "it" is made with ("what do the comments say?", "¿qué dice?", "¿cómo va?",
# "¿ya está hecha?").
_ASKING = ("say says said mean means happen happened happening going goes stand stands look looks dice dicen pasa paso "
           "va van anda andan done finished complete completed terminada terminado hecha hecho acabada acabado "
           "completada lista listo "
           # the record's other fields ("cool, who reported it?")
           "reported reporter opened filed raised created logged reporto abrio creo creada creado informador")
# The courtesy around a question ("gracias, ¿y cuál es su fecha límite?"), which names no topic and asks nothing.
_COURTESY = frozenset(terms.stem(w) for w in "thanks thank gracias cool okay great perfect perfecto vale genial nice "
                                             "hello hola buenas".split())
_FIELD_STEMS = frozenset(terms.stem(w) for words in terms.FIELD_HINTS.values() for w in words) | \
    terms.TEMPLATE_STEMS | frozenset(terms.stem(w) for w in _ASKING.split()) | _COURTESY

CONDENSE_PROMPT = (
    "Rewrite the user's last question as one standalone search query for a team's task tracker "
    "(tasks, sprints, projects, comments, documents). Resolve pronouns such as 'it' or 'that task' from "
    "the conversation and from what it is about. Keep names, ids and technical words. Reply with the query "
    "only, in the language of the last question, without quotes or explanation."
)


def own_topic(question: str) -> set[str]:
    """Stems of what the question is about beyond the fields it asks for (assignee, status, due...)."""
    return terms.topic_stems(_THAT_ONE.sub(" ", terms.fold(question))) - _FIELD_STEMS  # "that one" names nothing


def points_back(question: str) -> bool:
    """Whether the question uses a word that points at something already said ("it", "that task", "lo"),
    or a Spanish verb with the pronoun joined to it ("¿para cuándo hay que tenerla?", "¿quién va a hacerlo?").
    "está"/"esté" is the verb, not "esta" (this): "¿qué está atascado?" points at nothing."""
    verbs = _ESTAR.sub("estar", question.lower())
    said = terms.words(_NOT_POINTING.sub(" ", terms.fold(verbs)))
    return any(w in _POINTING or _ENCLITIC.fullmatch(w) for w in said) or bool(_AND_FIELD.match(terms.fold(question)))


_ENCLITIC = re.compile(r"\w{2,}(?:ar|er|ir)(?:lo|la|los|las)")
# "and the assignee?", "¿y la fecha?", "¿y el responsable?": one field of what was just said.
_AND_FIELD = re.compile(r"\W*(?:and|y)\s+(?:the|its|el|la|su)\s+\w+\W*$")


# Words that point at one thing already said ("when is it due?", "¿quién lo tiene asignado?", "¿y quién la
# tiene?", "and its due date?"). A Spanish "lo"/"la"/"le" points only where a pronoun stands (first, or after
# "quién", "qué", "y", ...): "¿qué hay en la wiki?" points at nothing.
_ONE = re.compile(r"(?<![\w-])(?:it|its|it's|(?:this|that) (?:one|task|ticket|issue)|(?:this|that)(?=\s+due\b|\W*$)|(?<!de )eso|ello|"
                  r"(?:esa|esta|ese|este) (?:tarea|ticket|incidencia))(?![\w-])"
                  r"|(?:^|[¿¡]|(?<![\w-])(?:quien|que|y|ya|cuando|como|alguien|nadie|mas))\s*(?:lo|la|le)\s+"
                  r"(?!que\b|mas\b)\w|^\W*(?:and|y)\s")
# A field alone, which only something already said has ("¿para cuándo?", "deadline?", "¿y cómo va?").
_BARE_FIELD = re.compile(r"\W*(?:and |y )?(?:(?:para |by |due )?(?:cuando|when)(?: due)?|deadline|due date|fecha(?: limite)?|"
                         r"status|estado|como va|how's it going|hows it going|assignee|responsable)\W*")
# A question about many (tasks, a count, "them"): a list or a figure, not one thing.
_MANY = re.compile(r"(?<![\w-])(?:tasks|tickets|issues|items|tareas|incidencias|pendientes|how many|how much|cuant\w*|"
                   r"them|they|those|these|ones|ellos|ellas|esos|esas|estos|estas)(?![\w-])")


def asks_about_one(question: str) -> bool:
    """Whether the question asks a field of one thing already said and names nothing of its own ("who has
    it?", "¿y cuándo vence?"): without a focus, nothing says which thing."""
    text = _NOT_POINTING.sub(" ", terms.fold(question)).strip()
    return bool(_ONE.search(text) or _BARE_FIELD.fullmatch(text)) and not _MANY.search(text) and is_follow_up(question)


def is_follow_up(question: str) -> bool:
    """A question that names nothing of its own: only the field it asks about ("when is it due?"), or
    one word beside a pronoun ("who reviewed it?"). A question that names a topic starts a new one."""
    said = {terms.stem(t) for t in terms.key_terms(terms.fold(question))}
    if said and not said - _COURTESY:
        return False  # "thanks" asks nothing
    topic = own_topic(question)
    return not topic or (len(topic) == 1 and points_back(question))


def focused_query(question: str, focus_title: str) -> str:
    """The question plus the key terms of the entity it is about that it does not already contain."""
    have = {terms.stem(t) for t in terms.key_terms(question)}
    carried = [t for t in terms.key_terms(focus_title) if terms.stem(t) not in have]
    return " ".join([question.strip(), *carried[:MAX_CARRIED_TERMS]])


def carried_query(previous_user_turns: Sequence[str], question: str) -> str:
    """Without a focus: the question plus the key terms of the newest earlier question that named a
    topic of its own (a run of follow-ups does not erase it)."""
    for earlier in reversed(previous_user_turns):
        if own_topic(earlier):
            return focused_query(question, earlier)
    return question.strip()


def condensation_messages(history: Sequence[Mapping[str, str]], question: str, about: str | None = None,
                          max_chars: int = MAX_TRANSCRIPT_CHARS) -> list[dict[str, str]]:
    """Chat-completions messages asking for a standalone query; the newest turns win the budget.
    ``about``: the conversation's focus as its header line ("[TASK #107] Fix login bug ...")."""
    lines: list[str] = []
    used = 0
    for turn in reversed(history):
        line = f"{'User' if turn['role'] == 'user' else 'Assistant'}: {' '.join(turn['content'].split())}"
        if used + len(line) > max_chars:
            break
        lines.append(line)
        used += len(line)
    transcript = "\n".join(reversed(lines)) or "(no earlier turns)"
    focus = f"The conversation is about: {' '.join(about.split())[:300]}\n\n" if about else ""
    return [
        {"role": "system", "content": CONDENSE_PROMPT},
        {"role": "user", "content": f"{focus}Conversation:\n{transcript}\n\nLast question: {question.strip()}"},
    ]
