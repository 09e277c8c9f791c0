"""In-database RAG backend: FastAPI service, ragctl CLI, Oracle 26ai and SQLite engines."""
