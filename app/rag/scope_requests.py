"""Scope by words: "only look at the payments project from now on", "search everything again", "solo el
proyecto de pagos", "busca en todo otra vez". Pure: no I/O.

``recognise`` is the one recogniser of a scope request. The chat turn answers one by changing the
conversation's scope (through the set_rag_scope tool's own path), and the same verdict decides whether
the model may call set_rag_scope at all: a state-changing tool runs only when the asker's own message
asks for it, never because retrieved text told an obedient model to (DESIGN.md, "Trust model").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.domain import Named, Vocabulary
from app.rag import refs, terms
from app.rag.intents import Intent

# Phrases that ask for where to search, folded (terms.fold). Any one of them, or the kind "scope" by
# meaning (app/rag/intents.py), makes a question a scope request.
_ASKING = re.compile(r"(?<![\w-])(?:" + "|".join((
    r"from now on", r"going forward", r"for now on", r"only (?:look|search|use|check|answer)\w*",
    r"just (?:look|search)\w*", r"(?:limit|restrict)\w* (?:it |this |the search |yourself |answers )?to",
    r"stop filtering", r"switch(?:ing)? (?:the scope |this conversation |the conversation )?to",
    r"change (?:the |this conversation's |the conversation's )?scope", r"cambia\w* (?:el ambito|a)",
    r"(?:search|look)\w* (?:in |at |through |across )?"
    r"(?:everything|everywhere|all projects|all of them|all(?= *(?:again)? *[.!?]*$))", r"all projects again",
    r"everything again",
    r"a partir de ahora", r"de ahora en adelante", r"desde ahora", r"solo (?:en |con )?(?:el|los) proyectos?",
    r"unicamente (?:en )?el proyecto", r"limita(?:r|te)?", r"centrate en", r"ce[nñ]ite a", r"quita el filtro",
    r"busca\w* en tod[oa]s?", r"busca\w* en todas partes", r"en todo otra vez",
    # A scope said for a while: "stick to Payments for now", "de momento solo Datos", "just X from now on".
    r"stick\w* (?:only |just )?to", r"(?:let's|lets|let us|just) focus\w* (?:only |just )?on", r"focus\w* (?:only|just) on", r"^\W*(?:all projects|every project|todos los proyectos)(?: please| por favor)?\W*$",
    r"(?:de momento|por ahora|por el momento|for now|for the time being),? solo",
    r"(?:mira|busca|ve|revisa)\w* (?:en )?tod[oa]s?(?: los proyectos)? (?:otra vez|de nuevo)",
    r"(?:look|search)\w* (?:at |in )?(?:everything|all) (?:now|again)",
    # Widening it again: going back to everything, or lifting the filter ("go back to all projects",
    # "clear the filter", "vuelve a todos los proyectos", "busca de nuevo en todo").
    r"(?:go|come|switch|get|head|going|coming|switching)\w* back to (?:search\w* |look\w* (?:at )?)?"
    r"(?:everything|everywhere|all|every project)", r"back to (?:everything|everywhere|all projects|every project)",
    r"return\w* to (?:everything|all projects|every project)", r"(?:all|every) projects? again",
    r"(?:clear|remove|reset|drop|lift|undo)\w* (?:the |this |that |my )?(?:project )?(?:scope|filter\w*|limit\w*|"
    r"restriction\w*)",
    r"(?:vuelve|vuelva|volver|vuelvo|volvamos|regresa|regrese|regresar|regresemos)"
    r"(?: otra vez| de nuevo)?(?: a (?:buscar|mirar|ver))?(?: otra vez| de nuevo)?(?: en| a| por)? "
    r"(?:todo|todos los proyectos|todas partes)",
    r"busca\w* (?:otra vez|de nuevo) (?:en |por )?(?:todo|todos los proyectos|todas partes)",
    r"(?:quita\w*|elimina\w*|borra\w*|limpia\w*|deshaz|resetea\w*) (?:el |los )?(?:filtros?|ambito|limite)",
    _NO_FILTER := r"(?:ya no|no) (?:filtr|limit)\w*|sin filtrar|(?:don't|do not|no longer) (?:filter|limit)\w*|"
                  r"stop (?:filtering|limiting)",
)) + r")(?![\w-])")
# A kind found by meaning changes state only beside a word that speaks of where to search: "what is the
# payments project about?" sits near the scope examples, yet asks for nothing to change.
_WHERE = re.compile(r"(?<![\w-])(?:only|just|solo|solamente|unicamente|limit\w*|restrict\w*|search\w*|look\w*|"
                    r"busca\w*|mira\w*|everything|everywhere|todo|todos|todas|again|otra vez|de nuevo|focus\w*|"
                    r"centr\w*|stick|quita\w*|filter\w*|filtr\w*|scope|ambito|from now|a partir)(?![\w-])")
_ALL = re.compile(r"(?<![\w-])(?:everything|everywhere|all projects|all of them|every project|all again|"
                  r"back to all|stop filtering|todo|todos los proyectos|todas partes|sin filtro|"
                  r"(?:clear|remove|reset|drop|lift|undo)\w* (?:the |this |that |my )?(?:project )?"
                  r"(?:scope|filter\w*|limit\w*|restriction\w*)|"
                  r"(?:quita\w*|elimina\w*|borra\w*|limpia\w*|deshaz|resetea\w*) (?:el |los )?"
                  r"(?:filtros?|ambito|limite)|" + _NO_FILTER + r")(?![\w-])")
_NONE = re.compile(r"(?<![\w-])(?:no project|without a project|belong to no project|any project|"
                   r"sin proyecto|ningun proyecto)(?![\w-])")
# Project words people say in Spanish about projects named in English (and back): "pagos" is Payments.
_GLOSSARY = {"pagos": "payments", "pago": "payment", "movil": "mobile", "app": "app", "datos": "data",
             "almacen": "warehouse", "clientes": "customers", "portal": "portal", "payments": "pagos",
             "mobile": "movil", "data": "datos", "customers": "clientes"}


@dataclass(frozen=True)
class ScopeRequest:
    lang: str
    target: str | None  # the scope asked for ("all", "none", a project id as text); None: which project?
    project: Named | None = None


def recognise(question: str, vocabulary: Vocabulary, intent: Intent | None) -> ScopeRequest | None:
    """The scope the asker's own message asks for, or None when it asks for none."""
    text = terms.fold(question)
    if not _ASKING.search(text) and not (intent == "scope" and _WHERE.search(text)):
        return None
    lang = terms.language(question)
    if _NONE.search(text):
        return ScopeRequest(lang, "none")
    if re.search(rf"(?<![\w-])(?:{_NO_FILTER})", text):  # "stop limiting it to payments": lifted, not moved
        return ScopeRequest(lang, "all")
    project = project_named(text, vocabulary)
    if project is not None:
        return ScopeRequest(lang, str(project.id), project)
    by_id = [source_id for source_type, source_id in refs.mentions(text) if source_type == "project"]
    if len(by_id) == 1:  # "switch to project 12": the tool's path says whether it exists
        return ScopeRequest(lang, str(by_id[0]))
    if _ALL.search(text):
        return ScopeRequest(lang, "all")
    return ScopeRequest(lang, None)


def project_named(folded: str, vocabulary: Vocabulary) -> Named | None:
    """The one project the folded text names: its whole name, or words of its name (or their Spanish or
    English twins) that no other project's name has."""
    words = set(terms.words(folded))
    said = words | {_GLOSSARY[w] for w in words if w in _GLOSSARY}
    whole = [p for p in vocabulary.projects if re.search(rf"(?<![\w-]){re.escape(terms.fold(p.name))}(?![\w-])",
                                                          folded)]
    if len(whole) == 1:
        return whole[0]
    best: list[tuple[int, Named]] = []
    for project in vocabulary.projects:
        own = set(terms.words(terms.fold(project.name))) - terms.STOP
        others = {w for p in vocabulary.projects if p is not project for w in terms.words(terms.fold(p.name))}
        distinct = (own - others) & said
        if distinct:
            best.append((len(distinct), project))
    best.sort(key=lambda b: -b[0])
    if best and (len(best) == 1 or best[0][0] > best[1][0]):
        return best[0][1]
    return None
