"""The conversation benchmark (issue 23): phrasings (tuned, and a held-out third in its own file), the
conversations generated from them over the demo data, each turn's truth computed from the records, the
scorer, and a loopback OpenAI-compatible model (honest, or one that invents an anchor). Everything here is
pure except loopback_llm.py (a socket); app/services/conversation_bench.py runs it on a seeded database."""
