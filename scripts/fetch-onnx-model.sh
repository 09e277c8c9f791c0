#!/usr/bin/env bash
# Download Oracle's augmented all_MiniLM_L12_v2 ONNX bundle and unzip the .onnx into ./models
# (bind-mounted into the database container as directory object MODEL_DIR, compose.dev.yml).
#
# The URL is an OCI pre-authenticated request that Oracle rotates: it defaults to
# Settings.onnx_bundle_url (app/config.py); set RAG_ONNX_BUNDLE_URL to override it when curl
# answers 401/404 (current list: https://docs.oracle.com/pls/topic/lookup?ctx=en/database/oracle/oracle-database/26/vecse&id=oml_ai_models_object_storage).
set -euo pipefail
cd "$(dirname "$0")/.."

MODELS_DIR="${MODELS_DIR:-./models}"
ONNX_FILE="${RAG_ONNX_MODEL_FILE:-all_MiniLM_L12_v2.onnx}"
PYTHON="${PYTHON:-.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3

if [ -n "${RAG_ONNX_BUNDLE_URL:-}" ]; then
  URL="$RAG_ONNX_BUNDLE_URL"
else
  URL="$("$PYTHON" -c 'from app.config import Settings; print(Settings.model_fields["onnx_bundle_url"].default)')"
fi

mkdir -p "$MODELS_DIR"
if [ -s "$MODELS_DIR/$ONNX_FILE" ]; then
  echo "$MODELS_DIR/$ONNX_FILE already present"
  exit 0
fi

ZIP="$MODELS_DIR/all_MiniLM_L12_v2_augmented.zip"
echo "downloading the ONNX bundle (RAG_ONNX_BUNDLE_URL overrides the URL) ..."
if ! curl --fail --location --silent --show-error --retry 3 --output "$ZIP" "$URL"; then
  echo "download failed: the pre-authenticated URL may have rotated; set RAG_ONNX_BUNDLE_URL" >&2
  rm -f "$ZIP"
  exit 1
fi
unzip -o -j "$ZIP" '*.onnx' -d "$MODELS_DIR"
rm -f "$ZIP"
chmod a+rx "$MODELS_DIR"          # the database OS user `oracle` must be able to enter the folder
chmod a+r "$MODELS_DIR"/*.onnx   # ... and read the model
ls -l "$MODELS_DIR/$ONNX_FILE"
