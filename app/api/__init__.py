"""The HTTP API (FastAPI). Build it with ``app.api.main.create_app``."""
