# The RAG backend image used by compose.dev.yml's `app` service.
FROM python:3.11-slim
WORKDIR /srv/app
COPY pyproject.toml README.md* ./
COPY app ./app
COPY migrations ./migrations
# Editable: the migrations/ folder is found next to the app/ package.
RUN pip install --no-cache-dir -e .
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["ragctl", "serve", "--host", "0.0.0.0", "--port", "8000"]
