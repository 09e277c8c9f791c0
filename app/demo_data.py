"""Deterministic, realistic demo data for a small product team. Pure: no I/O, no engine.

References between rows are list indexes (``project=0`` is the first project) because the database
assigns the ids; ``app.services.demo`` resolves them while seeding. Project 4 is run from the
Mexico City office, so its text (about 15% of the whole) is in Spanish.

Dates are relative to the day the data is built (``today``, the day of seeding by default), so the
second sprint of each project is the one running now, due dates fall around today and "overdue" means
what it says; the same day gives the same data, and ids and texts never depend on the day.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

SEED = 20240601
DEFAULT_TASKS = 150

EMPLOYEES = [
    # (first, last, role, telegram id). Employee 1 is the manager the Makefile's curl example uses.
    ("Maria", "Lopez", "MANAGER", "100000001"),
    ("Ana", "Garcia", "DEVELOPER", "100000002"),
    ("Ben", "Carter", "DEVELOPER", "100000003"),
    ("Chen", "Wei", "DEVELOPER", "100000004"),
    ("Diego", "Hernandez", "DEVELOPER", "100000005"),
    ("Emma", "Schmidt", "DEVELOPER", "100000006"),
    ("Farah", "Khan", "DEVELOPER", None),
    ("Grace", "Okafor", "ADMIN", "100000008"),
]
DEVELOPERS = [i for i, e in enumerate(EMPLOYEES) if e[2] == "DEVELOPER"]

PROJECTS = [
    ("Mobile App Relaunch", "ACTIVE", "Rebuild the customer mobile app (iOS and Android) on one codebase, "
     "with offline mode and a new onboarding flow.", "en"),
    ("Payments Platform", "ACTIVE", "Move card and bank payments to the new PSP, add refunds and "
     "reconciliation reports for finance.", "en"),
    ("Data Warehouse Migration", "PLANNING", "Migrate nightly ETL jobs and dashboards from the legacy "
     "warehouse to the cloud data platform.", "en"),
    ("Portal de Clientes LATAM", "ACTIVE", "Nuevo portal de autoservicio para clientes de Latinoamérica: "
     "facturas, soporte y pagos en moneda local.", "es"),
]

SPRINT_GOALS = {
    "en": ["Ship the foundations and unblock the team", "Harden, test and prepare the release",
           "Close the open bugs before the launch"],
    "es": ["Entregar la base del portal y desbloquear al equipo", "Estabilizar, probar y preparar el lanzamiento",
           "Cerrar los errores abiertos antes del lanzamiento"],
}

# (title, description) templates per language; {area} is filled from the project's areas.
TASK_TEMPLATES = {
    "en": [
        ("Fix login bug on {area}", "Users are logged out after a password reset on {area}. Reproduce, add a "
         "regression test and fix the session refresh."),
        ("Add unit tests for {area}", "Coverage of {area} is below 40%. Add tests for the happy path and the "
         "error branches."),
        ("Improve performance of {area}", "{area} takes more than 2 s at p95. Profile it, add caching where it "
         "helps and report the numbers."),
        ("Design review for {area}", "Walk through the proposed design of {area} with the team and record "
         "decisions in the wiki."),
        ("Refactor {area} module", "Split the {area} module into smaller services; keep the public API stable."),
        ("Write documentation for {area}", "Document setup, configuration and known limitations of {area}."),
        ("Investigate crash in {area}", "Crash reports show a null pointer in {area} on older devices. Find "
         "the root cause."),
        ("Add monitoring alerts for {area}", "Alert on error rate and latency of {area}; route pages to the "
         "on-call rotation."),
        ("Migrate {area} to the new API", "Replace calls to the deprecated v1 endpoints in {area} with v2."),
        ("Accessibility audit of {area}", "Check {area} against WCAG 2.1 AA: contrast, labels, keyboard focus."),
    ],
    "es": [
        ("Corregir error de inicio de sesión en {area}", "Los usuarios pierden la sesión al cambiar la "
         "contraseña en {area}. Reproducir, agregar una prueba y corregir la renovación del token."),
        ("Agregar pruebas unitarias a {area}", "La cobertura de {area} es baja. Agregar pruebas del flujo "
         "principal y de los casos de error."),
        ("Mejorar el rendimiento de {area}", "{area} tarda más de 2 s. Medir, agregar caché y reportar los "
         "resultados."),
        ("Revisión de diseño de {area}", "Revisar con el equipo el diseño propuesto de {area} y documentar las "
         "decisiones en la wiki."),
        ("Traducir textos de {area}", "Completar la traducción al español y al portugués de {area}."),
        ("Investigar fallo en {area}", "Hay reportes de fallos intermitentes en {area}. Encontrar la causa raíz."),
    ],
}

AREAS = {
    0: ["the onboarding screen", "push notifications", "offline sync", "the profile page", "the iOS build",
        "the Android build", "deep links", "the settings screen"],
    1: ["the refund flow", "the checkout page", "3-D Secure", "the PSP webhook handler", "the reconciliation "
        "report", "currency conversion", "the payout scheduler", "fraud scoring"],
    2: ["the nightly ETL", "the sales dashboard", "the customer dimension", "data quality checks",
        "the orders fact table", "the Airflow DAGs", "the cost report"],
    3: ["la página de facturas", "el chat de soporte", "los pagos en pesos", "el registro de clientes",
        "el panel de administración", "las notificaciones por correo"],
}

COMMENTS = {
    "en": ["I can reproduce this on staging.", "Blocked until the API contract is agreed.",
           "PR is up for review, please take a look.", "Added a test that fails without the fix.",
           "Moved to the next sprint: waiting on design.", "Deployed to staging, QA can verify.",
           "Root cause was a race in the cache invalidation.", "Numbers after the change: p95 down from 2.3 s to 0.6 s."],
    "es": ["Lo puedo reproducir en staging.", "Bloqueado hasta acordar el contrato de la API.",
           "El PR está listo para revisión.", "Agregué una prueba que falla sin la corrección.",
           "Desplegado en staging, QA puede verificar."],
}

# The tracker fields of each task (issue 31), by its template (the index in TASK_TEMPLATES[lang]): issue type and
# labels. Bugs also get the release they were found in (affects version) and an environment. The values avoid the
# words every question uses ("task", "story points" / "puntos de historia") and the words of the titles: the reader
# matches the tracker's values named in a question (issue 31), and the demo measures questions, not collisions.
TEMPLATE_FIELDS = {
    "en": [("Bug", ["bug", "auth"]), ("Improvement", ["qa"]), ("Feature", ["perf"]), ("Improvement", ["ux"]),
           ("Improvement", ["tech-debt"]), ("Improvement", ["docs"]), ("Bug", ["bug", "stability"]),
           ("Feature", ["observability", "ops"]), ("Feature", ["platform", "tech-debt"]), ("Improvement", ["a11y"])],
    "es": [("Bug", ["bug", "auth"]), ("Improvement", ["qa"]), ("Feature", ["perf"]), ("Improvement", ["ux"]),
           ("Improvement", ["i18n"]), ("Bug", ["bug"])],
}
# Each area's component: a layer of the product sharing no word with the area's title (a title already names its
# area; a component "Refunds" made every refund-flow task cover "¿las devoluciones son inmediatas?").
COMPONENTS = {
    "the onboarding screen": "UI", "the profile page": "UI", "the settings screen": "UI",
    "push notifications": "Messaging", "deep links": "Messaging", "offline sync": "Data layer",
    "the iOS build": "Release engineering", "the Android build": "Release engineering", "the refund flow": "Payments core",
    "the checkout page": "Storefront", "3-D Secure": "Card processing", "fraud scoring": "Card processing",
    "the PSP webhook handler": "Integrations", "the payout scheduler": "Treasury", "the reconciliation report": "Finance",
    "currency conversion": "Finance", "the nightly ETL": "Pipelines", "the Airflow DAGs": "Pipelines",
    "the sales dashboard": "BI", "the cost report": "BI", "the customer dimension": "Data model",
    "the orders fact table": "Data model", "data quality checks": "Governance",
    "la página de facturas": "Cobros", "los pagos en pesos": "Cobros", "el chat de soporte": "Atención",
    "las notificaciones por correo": "Atención", "el registro de clientes": "Cuentas",
    "el panel de administración": "Backoffice",
}
# Each project's releases: the first sprint's, the running sprint's, and the next one (tasks in no sprint).
# Version names as a tracker has them: numbers, without the project's name (a task already says its project).
RELEASES = {0: ["2.0.0", "2.1.0", "2.2.0"], 1: ["2026.1", "2026.2", "2026.3"], 2: ["Wave 1", "Wave 2", "Wave 3"],
            3: ["1.0", "1.1", "1.2"]}
PREVIOUS_RELEASE = {0: "1.9.4", 1: "2025.4", 2: "Wave 0", 3: "0.9"}
# Environments name no platform a title already names ("the iOS build"): a bug's environment is not its topic.
ENVIRONMENTS = {0: ["production, store release", "beta channel", "staging, internal testers"],
                1: ["staging, Chrome 130", "production, Safari 18"], 2: ["Airflow 2.9, staging"],
                3: ["producción, Chrome 130", "staging, Firefox 132"]}
# Finished tasks: how they were resolved (most were fixed).
RESOLUTIONS = ["Fixed"] * 8 + ["Won't Fix", "Duplicate"]

STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "DONE"]
PRIORITIES = ["LOW", "MEDIUM", "HIGH", "CRITICAL"]

DOCUMENTS = [
    # (title, body, project index or None, owner index or None (org-wide), doc type)
    ("Engineering onboarding guide", "Welcome to the team.\n\nClone the monorepo, run `make run` and ask in "
     "#eng-help.\n\nCode review: two approvals for payments code, one elsewhere.", None, None, "WIKI"),
    ("On-call runbook", "Pages go to the primary on call first.\n\nFor a payments outage, disable the PSP "
     "webhook retries and post in #incidents.\n\nEscalate to the manager after 30 minutes.", None, None, "WIKI"),
    ("Release process", "Releases happen every second Thursday.\n\nFreeze on Tuesday, QA sign-off on "
     "Wednesday, staged rollout at 10%, 50%, 100%.", None, None, "WIKI"),
    ("Payments architecture decision: PSP migration", "We move from the legacy gateway to the new PSP.\n\n"
     "Refunds are asynchronous; reconciliation runs nightly.", 1, None, "WIKI"),
    ("Weekly sync notes - mobile", "Attendees: Maria, Ana, Ben.\n\nOffline sync slips one sprint. The login bug "
     "after password reset is the top priority.", 0, 0, "MEETING_NOTES"),
    ("1:1 notes Ana / Maria", "Ana wants to lead the offline sync design.\n\nAgreed: pair with Ben on the iOS "
     "build first.", None, 1, "MEETING_NOTES"),
    ("Personal notes: warehouse cost ideas", "Partition the orders fact table by month.\n\nTurn off the unused "
     "dashboards to cut the bill.", 2, 3, "WIKI"),
    ("Notas de la reunión de planificación - Portal LATAM", "Asistentes: Maria, Diego.\n\nPrioridad: pagos en "
     "pesos y la página de facturas.\n\nRiesgo: la integración con el banco local.", 3, 4, "MEETING_NOTES"),
    ("Guía de estilo para textos en español", "Usar tuteo en toda la interfaz.\n\nEvitar anglicismos cuando "
     "exista una palabra común en español.", 3, None, "WIKI"),
]


@dataclass
class DemoData:
    employees: list[dict] = field(default_factory=list)
    projects: list[dict] = field(default_factory=list)
    sprints: list[dict] = field(default_factory=list)  # "project": project index
    tasks: list[dict] = field(default_factory=list)  # "project", "sprint", "assignee": indexes or None
    comments: list[dict] = field(default_factory=list)  # "task", "author": indexes
    documents: list[dict] = field(default_factory=list)  # "project", "owner": indexes or None
    languages: dict[str, int] = field(default_factory=dict)  # characters of text by language


def build(tasks: int = DEFAULT_TASKS, seed: int = SEED, today: dt.date | None = None) -> DemoData:
    """The same data for the same arguments, every time (``today``: the day seeded, by default)."""
    today = today or dt.date.today()
    data = DemoData(languages={"en": 0, "es": 0})
    _add_people_and_projects(data, today)
    _add_tasks(data, random.Random(seed), tasks, today, seed)
    _add_documents(data)
    return data


def _add_people_and_projects(data: DemoData, today: dt.date) -> None:
    chars = data.languages
    for first, last, role, telegram in EMPLOYEES:
        data.employees.append({"first_name": first, "last_name": last, "role": role, "telegram_id": telegram,
                               "email": f"{first}.{last}@example.com".lower()})
    for ix, (name, status, description, lang) in enumerate(PROJECTS):
        start = today - dt.timedelta(days=90 - 15 * ix)
        data.projects.append({"name": name, "status": status, "description": description,
                              "start_date": start, "end_date": start + dt.timedelta(days=240)})
        chars[lang] += len(name) + len(description)
        for n in range(2):  # two two-week sprints per project: the first closed, the second running now
            s_start = today - dt.timedelta(days=5 + 14 * (1 - n))
            goal = SPRINT_GOALS[lang][n]
            label = "Sprint" if lang == "en" else "Iteración"
            data.sprints.append({"project": ix, "name": f"{name.split()[0]} {label} {n + 1}",
                                 "status": "CLOSED" if n == 0 else "ACTIVE", "goal": goal,
                                 "start_date": s_start, "end_date": s_start + dt.timedelta(days=13)})
            chars[lang] += len(goal)


def _add_tasks(data: DemoData, rng: random.Random, tasks: int, today: dt.date, seed: int = SEED) -> None:
    chars = data.languages
    used_titles: set[str] = set()
    for t in range(tasks):
        # Every seventh task goes to the Spanish project, which keeps Spanish near 15% of the text.
        project = 3 if t % 7 == 3 else [0, 1, 2][t % 3]
        lang = PROJECTS[project][3]
        template, description = rng.choice(TASK_TEMPLATES[lang])
        area = rng.choice(AREAS[project])
        title = template.format(area=area)
        n = 2
        while title in used_titles:  # titles are the seeder's natural key: keep them unique
            title = f"{template.format(area=area)} ({'part' if lang == 'en' else 'parte'} {n})"
            n += 1
        used_titles.add(title)
        description = description.format(area=area)
        description = description[0].upper() + description[1:]
        sprint_ix = project * 2 + rng.randrange(2) if rng.random() < 0.85 else None
        assignee = rng.choice(DEVELOPERS) if rng.random() < 0.9 else None
        data.tasks.append({
            "title": title, "description": description, "status": rng.choice(STATUSES),
            "priority": rng.choice(PRIORITIES), "project": project, "sprint": sprint_ix, "assignee": assignee,
            "story_points": rng.choice([1, 2, 3, 5, 8, 13]), "estimated_hours": rng.choice([2, 4, 6, 8, 12, 16, 24]),
            "expected_end_date": today + dt.timedelta(days=rng.randrange(-20, 60)),
        })
        kind = next(i for i, pair in enumerate(TASK_TEMPLATES[lang]) if pair[0] == template)
        data.tasks[-1].update(_tracker_fields(data.tasks[-1], kind, area, lang, random.Random(seed * 1000 + t), today))
        chars[lang] += len(title) + len(description)
        for body in rng.sample(COMMENTS[lang], 1 + rng.randrange(3)):  # distinct: (task, body) is a key
            author = assignee if assignee is not None and rng.random() < 0.6 else rng.randrange(len(EMPLOYEES))
            data.comments.append({"task": t, "author": author, "body": body})
            chars[lang] += len(body)


def _tracker_fields(row: dict, kind: int, area: str, lang: str, rng: random.Random, today: dt.date) -> dict:
    """Reporter, created / updated / resolved times, resolution, issue type, labels, component, fix and affects
    versions and environment of one task. Its own random stream: the fields above (ids, titles, assignees,
    statuses, due dates, comments) are exactly what they were before these existed."""
    issue_type, labels = TEMPLATE_FIELDS[lang][kind]
    project, sprint = row["project"], row["sprint"]
    created = dt.datetime.combine(today - dt.timedelta(days=rng.randrange(45, 120)), dt.time(9 + rng.randrange(8)))
    yesterday = dt.datetime.combine(today - dt.timedelta(days=1), dt.time(18))
    resolved = resolution = None
    if row["status"] == "DONE":
        resolved = min(created + dt.timedelta(days=rng.randrange(3, 40), hours=rng.randrange(8)), yesterday)
        resolution = rng.choice(RESOLUTIONS)
    updated = resolved or min(created + dt.timedelta(days=rng.randrange(1, 50), hours=rng.randrange(8)), yesterday)
    bug = issue_type == "Bug"
    return {
        # The manager files a third of the work; the rest is reported by the team.
        "reporter": 0 if rng.random() < 0.35 else rng.choice(DEVELOPERS),
        "created_at": created, "updated_at": updated, "resolved_at": resolved, "resolution": resolution,
        "issue_type": issue_type, "labels": list(labels), "components": [COMPONENTS[area]],
        "fix_versions": [RELEASES[project][2 if sprint is None else sprint % 2]],
        "affects_versions": [PREVIOUS_RELEASE[project]] if bug else [],
        "environment": rng.choice(ENVIRONMENTS[project]) if bug else None,
    }


def _add_documents(data: DemoData) -> None:
    for title, body, project, owner, doc_type in DOCUMENTS:
        data.documents.append({"title": title, "body": body, "project": project, "owner": owner,
                               "doc_type": doc_type})
        data.languages["es" if project == 3 else "en"] += len(title) + len(body)
