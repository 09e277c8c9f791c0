"""Spanish and English words of a software team's work that name the same thing: a Spanish question about an
English record ("¿cada cuánto hay un lanzamiento?" and "Releases happen every second Thursday") shares no word
with it, and the embedded model, trained on English, barely places the two together. Pure: no I/O.

Two uses, one table: the lexical arm searches a Spanish question's words with their English equivalents
beside them (``lexical_query``, app/services/search.py), and the answer's gate and coverage read a record's
words with their equivalents in the other language (``widen``, app/rag/extractive.py), so "lanzamiento" is
held by a record saying "release". Compared by the stem of app/rag/terms.py (five folded letters), as the
rest of the answer's word checks are. Words of the domain, not of one record: a general glossary.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.rag import terms

# Spanish -> English, each side a few spellings; every word is compared by its stem.
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("lanzamiento lanzamientos publicación versión", "release releases"),
    ("despliegue despliegues desplegar", "deploy deployment rollout"),
    ("aprobación aprobaciones aprobar", "approval approvals approve"),
    ("revisión revisiones revisar revisor revisores", "review reviews reviewer reviewers"),
    ("código", "code"),
    ("pagos pago", "payments payment"),
    ("reembolso reembolsos devolución devoluciones", "refund refunds"),
    ("caída cae caen falla fallo caído", "outage down failure"),
    ("incidente incidentes", "incident incidents"),
    ("guardia", "call pages"),
    ("escalar escala escalamos", "escalate"),
    ("gerente jefe", "manager"),
    ("minutos", "minutes"),
    ("sistema sistemas", "system systems"),
    ("semana semanal semanales", "weekly week"),
    ("jueves", "thursday"),
    ("martes", "tuesday"),
    ("miércoles", "wednesday"),
    ("congelación congelar", "freeze"),
    ("cada", "every each"),
    ("reunión reuniones", "meeting sync"),
    ("notas", "notes"),
    ("acuerdo acordado acordamos", "agreed"),
    ("prioridad prioridades priorizar", "priority"),
    ("riesgo riesgos", "risk risks"),
    ("incorporación bienvenida", "onboarding welcome"),
    ("equipo", "team"),
    ("repositorio monorepositorio", "repository monorepo"),
    ("clonar", "clone"),
    ("ejecutar", "run"),
    ("ayuda", "help"),
    ("arquitectura", "architecture"),
    ("migración migrar", "migration migrate"),
    ("pasarela", "gateway"),
    ("conciliación", "reconciliation"),
    ("nocturna nocturno noche", "nightly night"),
    ("asíncrono asíncronos asíncronas", "asynchronous"),
    ("síncrono síncronos síncronas", "synchronous"),
    ("almacén", "warehouse"),
    ("costo costos coste costes", "cost costs"),
    ("factura facturas", "invoice invoices bill"),
    ("tablero tableros panel", "dashboard dashboards"),
    ("informe informes reporte reportes", "report reports"),
    ("particionar partición", "partition"),
    ("mes mensual", "month monthly"),
    ("móvil", "mobile"),
    ("aplicación", "app application"),
    ("sincronización", "sync"),
    ("inicio sesión", "login"),
    ("contraseña", "password"),
    ("error errores", "bug bugs error"),
    ("prueba pruebas", "test tests"),
    ("documentación documento", "documentation document"),
    ("rendimiento", "performance"),
    ("estilo", "style"),
    ("guía", "guide"),
    ("texto textos", "text texts"),
    ("español", "spanish"),
    ("desactivar deshabilitar apagar", "disable turn off"),
    ("reintento reintentos", "retries retry"),
    ("principal", "primary"),
    ("asistentes", "attendees"),
    ("retrasa retraso atrasa", "slips delay"),
    ("restablecer restablecimiento", "reset"),
    ("pareja emparejar", "pair"),
    ("pedidos órdenes", "orders"),
    ("reducir recortar", "cut reduce"),
    ("heredado heredada antigua antiguo", "legacy"),
    ("escalonado gradual", "staged"),
    ("diseño", "design"),
    ("liderar dirigir", "lead"),
    ("desconectado conexión", "offline"),
    ("nuevo nueva nuevos", "new"),
    ("desarrollador desarrolladores", "developer developers"),
    # More of a team's everyday words (issue 23: a question says them where a document says another).
    ("alerta alertas", "alert alerts page pages"),
    ("avisar avisa avisan aviso avisos llamar", "notify page pages call"),
    ("esperar espero esperamos", "wait"),
    ("publicar publica publicamos sacar sacamos", "release ship publish"),
    ("inmediato inmediata inmediatos inmediatas instantáneo", "instant immediate synchronous"),
    ("proveedor proveedores", "provider vendor"),
    ("abaratar barato barata caro", "cheaper cheap expensive cost bill"),
    ("preocupa preocupación preocupaciones", "risk concern worry"),
    ("tutear usted", "tuteo"),
    ("usuario usuarios", "user users"),
    ("cliente clientes", "customer customers client"),
    ("empezar comenzar empiezo", "start begin"),
    ("configurar configuración entorno", "setup configure environment"),
    ("rama ramas", "branch branches"),
    ("fusionar", "merge"),
    ("tarjeta tarjetas", "card cards"),
    ("tabla tablas", "table tables"),
    ("dividir", "partition split"),
    ("banco bancos", "bank banks"),
    ("comisión comisiones", "fee fees"),
    ("presupuesto presupuestos", "budget budgets"),
    ("oficina oficinas", "office offices"),
    ("contrato contratos", "contract contracts"),
    ("vacaciones", "vacation holidays"),
    ("sueldo salario", "salary"),
    ("calendario", "schedule calendar"),
    ("cambio cambios cambiar", "change changes"),
    ("arreglar corregir", "fix"),
    ("datos", "data"),
    ("servidor servidores", "server servers"),
    ("mensaje mensajes", "message messages"),
    ("canal canales", "channel channels"),
    ("pregunta preguntas preguntar", "question questions ask"),
    ("persona personas gente", "people person"),
    ("día días", "day days"),
    ("lunes", "monday"),
    ("viernes", "friday"),
    ("probar", "test"),
    ("rápido rápida lento lenta", "fast quick slow"),
    ("nube", "cloud"),
    ("seguridad", "security"),
    ("acceso accesos permiso permisos", "access permission permissions"),
    ("interfaz pantalla pantallas", "ui interface screen screens"),
    ("palabra palabras", "word words"),
    ("inglés", "english"),
    ("primero primera", "first"),
    ("quiere quieren querer quiero", "want wants"),
    ("encargar encargarse", "lead own"),
    ("usar utilizar", "use"),
    ("escribir", "write"),
    ("hablar", "speak talk"),
    ("firmar", "sign"),
    ("enviar mandar", "send"),
    ("recibir", "receive"),
    ("guardar", "save store"),
    ("borrar eliminar", "delete remove"),
    ("crear", "create"),
    ("añadir agregar", "add"),
    ("actualizar", "update"),
    ("instalar", "install"),
    ("regla reglas norma normas", "rule rules"),
    ("política políticas", "policy policies"),
    ("nombre nombres", "name names"),
    ("año años", "year years"),
    ("compañero compañeros compañera", "colleague teammate"),
)

_EN_STEMS = {terms.stem(w) for _, en in GLOSSARY for w in en.split()}


def _pairs() -> dict[str, frozenset[str]]:
    other: dict[str, set[str]] = {}
    for es, en in GLOSSARY:
        es_stems = {terms.stem(w) for w in es.split()}
        en_stems = {terms.stem(w) for w in en.split()}
        for s in es_stems:
            other.setdefault(s, set()).update(en_stems - {s})
        for s in en_stems:
            other.setdefault(s, set()).update(es_stems - {s})
    return {s: frozenset(t) for s, t in other.items()}


_OTHER = _pairs()
_ENGLISH: dict[str, tuple[str, ...]] = {}
for _es, _en in GLOSSARY:
    for _word in _es.split():
        _ENGLISH.setdefault(terms.stem(_word), ())
        _ENGLISH[terms.stem(_word)] += tuple(w for w in _en.split() if w not in _ENGLISH[terms.stem(_word)])


def widen(stems: Iterable[str]) -> set[str]:
    """The stems with their equivalents in the other language."""
    held = set(stems)
    return held.union(*(_OTHER.get(s, ()) for s in held))


def gloss(question: str) -> str | None:
    """A Spanish question's key words said in English where the glossary knows them, as written where it does
    not ("¿cuánto espero antes de avisar al jefe en un incidente?" -> "wait notify page pages call manager
    incident incidents"; "el panel de administración" -> "dashboard dashboards administración"): what the
    English-only embedded model can compare with an English record's sentences. None for an English
    question, or when the glossary knows none of its words."""
    if not terms.is_spanish(question):
        return None
    said = [_ENGLISH.get(terms.stem(t), (t,)) for t in terms.key_terms(question)]
    if all(len(s) == 1 and s[0] in terms.key_terms(question) for s in said):
        return None
    return " ".join(dict.fromkeys(w for s in said for w in s))


def lexical_query(question: str) -> str:
    """What the lexical arm searches: a Spanish question's words, then the English words its words mean
    (an English question as it is — its words are the index's)."""
    if not terms.is_spanish(question):
        return question
    added = [w for t in terms.key_terms(question) if terms.stem(t) not in _EN_STEMS
             for w in _ENGLISH.get(terms.stem(t), ())]
    return " ".join([question, *dict.fromkeys(added)])
