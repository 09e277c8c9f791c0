"""Texts for the FTS5-equivalence tests: the demo data's own words, Spanish with and without accents,
digits, underscores, combining marks and random Unicode (astral planes included, no surrogates)."""

from __future__ import annotations

import random

from app import demo_data

SPANISH = ("configuración clúster despliegue pagó facturación niño pingüino acción rápido Ñandú "
           "ÁRBOL camión información migración revisión").split()
ENGLISH = ("running connections caresses ponies relational conditional rational valenci hesitanci "
           "digitizer conformabli radicalli differentli vileli analogousli vietnamization predication "
           "operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti "
           "triplicate formative formalize electriciti electrical hopeful goodness revival allowance "
           "inference airliner gyroscopic adjustable defensible irritant replacement adjustment "
           "dependent adoption homologou communism activate angulariti homologous effective bowdlerize "
           "probate rate cease controll roll agreed feed plastered bled motoring sing conflated troubled "
           "sized hopping tanned falling hissing fizzed failing filing happy sky generalizations oscillators "
           "login invoice deploy retries retried caching api_gateway user_id v2_1 x y aed eed ing ies sss").split()
MARKS = ["e\u0301", "n\u0303", "a\u0308", "\u0301x", "o\u0302\u0323"]


def demo_texts() -> list[str]:
    data = demo_data.build()
    texts = [p["name"] + " " + p["description"] for p in data.projects]
    texts += [s["name"] + " " + s["goal"] for s in data.sprints]
    texts += [t["title"] + "\n" + t["description"] for t in data.tasks]
    texts += [c["body"] for c in data.comments]
    texts += [d["title"] + "\n" + d["body"] for d in data.documents]
    return texts


def _random_char(rng: random.Random) -> str:
    while True:
        cp = rng.choice([rng.randint(0, 0x24F), rng.randint(0, 0x2FFF), rng.randint(0, 0xFFFF),
                         rng.randint(0x10000, 0x10FFFF)])
        if not 0xD800 <= cp <= 0xDFFF and cp != 0:
            return chr(cp)


def random_texts(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    words = SPANISH + ENGLISH + MARKS + ["123", "4,5", "foo_bar", "ÉCOLE", "İstanbul", "straße", "ﬁle", "ΣΊΣΥΦΟΣ"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 30)):
            roll = rng.random()
            if roll < 0.7:
                parts.append(rng.choice(words))
            elif roll < 0.85:
                parts.append("".join(_random_char(rng) for _ in range(rng.randint(1, 6))))
            else:
                parts.append(str(rng.randint(0, 10**6)))
        out.append(rng.choice([" ", "  ", "_", "-", ", ", "\n"]).join(parts))
    return out
