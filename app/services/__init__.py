"""Use cases: what the API and the CLI call. Services talk to engines only through engines.base."""
