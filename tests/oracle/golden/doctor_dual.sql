-- source: FACTS.md §10 (plain SELECT) — the connection answers after DPY-4024

SELECT 1 FROM dual
