"""Everything the bot says, in English and Spanish, chosen by the Telegram user's ``language_code``.

One ``Texts`` per language, every field filled (a test holds both catalogues to the same fields and
placeholders). Commands and their arguments (``/scope all``) stay English in every language: they
are what the user types. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Texts:
    thinking: str
    help: str
    greeting: str  # {name}
    sees_everything: str
    sees_own: str
    examples: str
    unknown_user: str  # {telegram_id}
    not_allowed: str
    private_only: str
    busy: str
    unavailable: str
    failed: str
    misconfigured: str
    too_long: str  # {limit}
    cannot_use: str  # {detail}
    bad_scope: str  # {scope} {detail}
    scope_usage: str
    scope_is: str  # {scope}
    scope_set: str  # {scope}
    scope_now: str  # {scope}
    new_conversation: str  # {scope}
    all_default: str
    all_projects: str
    no_project: str
    project_n: str  # {id}
    projects_header: str
    projects_none: str
    choose_project: str  # {query}
    no_project_match: str  # {query}
    sources: str  # {citations}
    dont_know: str
    llm_fallback: str
    cmd_start: str
    cmd_help: str
    cmd_new: str
    cmd_scope: str
    cmd_projects: str


EN = Texts(
    thinking="thinking…",
    help=(
        "Ask me about your team's tasks, sprints, projects and documents; I answer from what you may see.\n\n"
        "/new: start a new conversation (I forget the previous one's context)\n"
        "/projects: the projects you can choose\n"
        "/scope: show what I search\n"
        "/scope all: search every project you may see\n"
        "/scope none: only documents outside any project\n"
        "/scope <project name or id>: only that project\n"
        "/help: this message"
    ),
    greeting="Hello, {name}!",
    sees_everything="You see every task, sprint, project and document of the team.",
    sees_own="You see the sprints, the projects, the team's documents, the tasks assigned to you and the "
             "documents you own.",
    examples=("You can ask, for example:\n"
              "• What is blocking the login work?\n"
              "• Which of my tasks are overdue?\n"
              "• Who is working on task 12?"),
    unknown_user=("Sorry, I don't know you yet: your Telegram account is not linked to an employee. "
                  "Please ask an administrator to add your Telegram id ({telegram_id})."),
    not_allowed="Sorry, I'm not allowed to answer for you. Please ask an administrator.",
    private_only="Sorry, I only answer in a private chat, so nobody else reads what you may see.",
    busy="Sorry, I'm busy right now. Please try again in a moment.",
    unavailable="Sorry, I can't reach the knowledge base right now. Please try again later.",
    failed="Sorry, something went wrong while answering. Please try again.",
    misconfigured="Sorry, I'm not set up correctly. Please tell an administrator.",
    too_long="Sorry, that message is too long: please keep it under {limit} characters.",
    cannot_use="Sorry, I couldn't use that: {detail}",
    bad_scope="Sorry, I can't use scope {scope!r}: {detail}. Try /scope all, /scope none or /projects.",
    scope_usage="Use /scope all, /scope none or /scope <project name or id> (/projects lists them).",
    scope_is="Scope: {scope}.",
    scope_set="Scope set: {scope}.",
    scope_now="Scope is now: {scope}.",
    new_conversation="Started a new conversation. Scope: {scope}.",
    all_default="All projects (default)",
    all_projects="All projects",
    no_project="No project",
    project_n="project {id}",
    projects_header="Projects you can choose with /scope <name or id>:",
    projects_none="There are no projects yet.",
    choose_project="Several projects match “{query}”. Which one?",
    no_project_match="No project matches “{query}”. /projects lists them all.",
    sources="Sources: {citations}",
    dont_know="I don't know.",
    llm_fallback="(The language model was unavailable, so this answer quotes the records directly.)",
    cmd_start="Who I am and what you can ask",
    cmd_help="The commands",
    cmd_new="Start a new conversation",
    cmd_scope="Show or change what I search",
    cmd_projects="The projects you can choose",
)

ES = Texts(
    thinking="pensando…",
    help=(
        "Pregúntame por las tareas, sprints, proyectos y documentos de tu equipo; respondo con lo que puedes ver.\n\n"
        "/new: empezar una conversación nueva (olvido el contexto de la anterior)\n"
        "/projects: los proyectos que puedes elegir\n"
        "/scope: mostrar dónde busco\n"
        "/scope all: buscar en todos los proyectos que puedes ver\n"
        "/scope none: solo documentos que no son de ningún proyecto\n"
        "/scope <nombre o id del proyecto>: solo ese proyecto\n"
        "/help: este mensaje"
    ),
    greeting="¡Hola, {name}!",
    sees_everything="Ves todas las tareas, sprints, proyectos y documentos del equipo.",
    sees_own="Ves los sprints, los proyectos, los documentos del equipo, las tareas asignadas a ti y los "
             "documentos que son tuyos.",
    examples=("Puedes preguntar, por ejemplo:\n"
              "• ¿Qué está bloqueando el trabajo del login?\n"
              "• ¿Cuáles de mis tareas están atrasadas?\n"
              "• ¿Quién trabaja en la tarea 12?"),
    unknown_user=("Lo siento, todavía no te conozco: tu cuenta de Telegram no está vinculada a ningún empleado. "
                  "Pide a un administrador que añada tu id de Telegram ({telegram_id})."),
    not_allowed="Lo siento, no tengo permiso para responderte. Pide ayuda a un administrador.",
    private_only="Lo siento, solo respondo en un chat privado, para que nadie más lea lo que tú puedes ver.",
    busy="Lo siento, ahora estoy ocupado. Inténtalo de nuevo en un momento.",
    unavailable="Lo siento, ahora no puedo acceder a la base de conocimiento. Inténtalo más tarde.",
    failed="Lo siento, algo salió mal al responder. Inténtalo de nuevo.",
    misconfigured="Lo siento, no estoy bien configurado. Avisa a un administrador.",
    too_long="Lo siento, ese mensaje es demasiado largo: escribe menos de {limit} caracteres.",
    cannot_use="Lo siento, no he podido usar eso: {detail}",
    bad_scope="Lo siento, no puedo usar el ámbito {scope!r}: {detail}. Prueba /scope all, /scope none o /projects.",
    scope_usage="Usa /scope all, /scope none o /scope <nombre o id del proyecto> (/projects los lista).",
    scope_is="Ámbito: {scope}.",
    scope_set="Ámbito elegido: {scope}.",
    scope_now="El ámbito ahora es: {scope}.",
    new_conversation="Conversación nueva. Ámbito: {scope}.",
    all_default="Todos los proyectos (por defecto)",
    all_projects="Todos los proyectos",
    no_project="Ningún proyecto",
    project_n="proyecto {id}",
    projects_header="Proyectos que puedes elegir con /scope <nombre o id>:",
    projects_none="Todavía no hay proyectos.",
    choose_project="Hay varios proyectos que coinciden con «{query}». ¿Cuál?",
    no_project_match="Ningún proyecto coincide con «{query}». /projects los lista todos.",
    sources="Fuentes: {citations}",
    dont_know="No lo sé.",
    llm_fallback="(El modelo de lenguaje no estaba disponible, así que esta respuesta cita los registros "
                 "directamente.)",
    cmd_start="Quién soy y qué puedes preguntar",
    cmd_help="Los comandos",
    cmd_new="Empezar una conversación nueva",
    cmd_scope="Ver o cambiar dónde busco",
    cmd_projects="Los proyectos que puedes elegir",
)

CATALOGUE: dict[str, Texts] = {"en": EN, "es": ES}


def texts_for(language_code: str | None) -> Texts:
    """The user's language (``es``, ``es-419``, ``es-ES`` → Spanish); English for anything else."""
    primary = (language_code or "").split("-")[0].strip().lower()
    return CATALOGUE.get(primary, CATALOGUE[DEFAULT_LANGUAGE])
