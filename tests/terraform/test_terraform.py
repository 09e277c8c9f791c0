"""Checks on terraform/ that run without providers or network.

`terraform init/validate` need provider downloads, which are impossible where this was written, so
this suite is what stands between a typo and an operator: `terraform fmt -check`, structural checks
on the parsed HCL (python-hcl2), and the download script itself, run against a local HTTP server.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import re
import shutil
import subprocess
import textwrap
import threading
import zipfile
from functools import partial
from pathlib import Path

import hcl2
import pytest

REPO = Path(__file__).resolve().parents[2]
TF_DIR = REPO / "terraform"
TF_FILES = ("versions.tf", "variables.tf", "embeddings.tf", "outputs.tf")

SECRET_NAME = re.compile(r"password|passwd|secret|token|private_key|api_key|passphrase|fingerprint|credential", re.I)
# Values that must never be a committed default. PAR URLs (/p/<token>/) are bearer credentials,
# except Oracle's own, publicly documented model bundle in its adwc4pm tenancy.
CREDENTIAL_VALUE = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|ocid1\.(user|credential)\.|(?:password|pwd|secret|token)\s*[=:]|AKIA[0-9A-Z]{16}",
    re.I,
)
PAR_PATH = re.compile(r"/p/[A-Za-z0-9_\-]{20,}/")
ORACLE_PUBLIC_BUNDLE = re.compile(r"^https://adwc4pm\.objectstorage\.[a-z0-9-]+\.oci\.customer-oci\.com/p/[^/]+/n/adwc4pm/b/")


# --- helpers ------------------------------------------------------------------------------------


def unq(value):
    """python-hcl2 keeps the quotes of string literals (and of block labels): strip them."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def heredoc_body(raw: str) -> str:
    """The text of a `<<-EOT ... EOT` heredoc as Terraform would pass it (indent stripped)."""
    text = unq(raw)
    m = re.fullmatch(r"<<-?(\w+)\n(.*)\n\s*\1", text, re.S)
    assert m, f"not a heredoc: {text[:40]!r}"
    body = m.group(2)
    assert "${" not in body.replace("$${", "") and "%{" not in body.replace("%%{", ""), (
        "the script interpolates Terraform expressions; this test would not run what Terraform runs"
    )
    return textwrap.dedent(body).replace("$${", "${").replace("%%{", "%{") + "\n"


def load_tf(text_by_name: dict[str, str]) -> dict[str, list]:
    merged: dict[str, list] = {}
    for name, text in text_by_name.items():
        doc = hcl2.load(io.StringIO(text))
        for key, value in doc.items():
            if key.startswith("__"):
                continue
            merged.setdefault(key, []).extend(value)
    return merged


def labelled(tf: dict, kind: str) -> dict[str, dict]:
    """{name: body} for single-label blocks (variable, output)."""
    out = {}
    for block in tf.get(kind, []):
        for label, body in block.items():
            out[unq(label)] = body
    return out


def resources(tf: dict, kind: str = "resource") -> dict[tuple[str, str], dict]:
    out = {}
    for block in tf.get(kind, []):
        for rtype, named in block.items():
            for name, body in named.items():
                out[(unq(rtype), unq(name))] = body
    return out


def of_type(tf: dict, rtype: str) -> dict[str, dict]:
    return {name: body for (t, name), body in resources(tf).items() if t == rtype}


def secret_default_problems(variables: dict[str, dict]) -> list[str]:
    problems = []
    for name, body in variables.items():
        has_default = "default" in body
        default = body.get("default")
        secret_named = bool(SECRET_NAME.search(name))
        if secret_named and has_default:
            problems.append(f"{name}: looks secret but has a default")
        if secret_named and body.get("sensitive") is not True:
            problems.append(f"{name}: looks secret but is not sensitive")
        if not secret_named and body.get("sensitive") is True:
            problems.append(f"{name}: marked sensitive but nothing secret about it")
        if isinstance(default, str):
            value = unq(default)
            if CREDENTIAL_VALUE.search(value):
                problems.append(f"{name}: default looks like a credential")
            if PAR_PATH.search(value) and not ORACLE_PUBLIC_BUNDLE.match(value):
                problems.append(f"{name}: default is a pre-authenticated URL other than Oracle's public bundle")
    return problems


@pytest.fixture(scope="module")
def tf() -> dict[str, list]:
    return load_tf({name: (TF_DIR / name).read_text() for name in TF_FILES})


# --- formatting -----------------------------------------------------------------------------------


def test_terraform_fmt_is_clean():
    terraform = shutil.which("terraform")
    if terraform is None:
        pytest.skip("terraform binary not on PATH: `terraform fmt -check` not run")
    proc = subprocess.run(
        [terraform, "fmt", "-check", "-recursive", "-diff", "terraform"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, f"terraform fmt would change files:\n{proc.stdout}{proc.stderr}"


# --- versions / providers -------------------------------------------------------------------------


def test_required_version_and_pinned_providers(tf):
    (block,) = tf["terraform"]
    m = re.fullmatch(r">=\s*(\d+)\.(\d+)(?:\.\d+)?", unq(block["required_version"]))
    assert m and (int(m.group(1)), int(m.group(2))) >= (1, 5), block["required_version"]

    (providers,) = block["required_providers"]
    providers = {k: v for k, v in providers.items() if not k.startswith("__")}
    assert set(providers) == {"oci", "null"}, "only oracle/oci and hashicorp/null are allowed"
    assert unq(providers["oci"]["source"]) == "oracle/oci"
    assert unq(providers["null"]["source"]) == "hashicorp/null"
    for name, spec in providers.items():
        version = unq(spec.get("version", ""))
        # a real constraint: pessimistic (~>) or an explicit upper bound, never open-ended/absent
        assert re.search(r"~>\s*\d|<\s*\d", version), f"{name} provider not pinned: {version!r}"


def test_oci_provider_takes_region_and_no_credentials(tf):
    (oci,) = [unq_body for block in tf["provider"] for label, unq_body in block.items() if unq(label) == "oci"]
    assert oci["region"] == "${var.region}"
    for key in ("private_key", "private_key_path", "fingerprint", "user_ocid", "tenancy_ocid", "private_key_password"):
        assert key not in oci, f"credential {key} configured in provider block"


def test_only_allowed_resource_types(tf):
    for rtype, _ in resources(tf):
        assert rtype.startswith("oci_") or rtype in {"terraform_data", "null_resource"}, rtype


# --- variables ------------------------------------------------------------------------------------


def test_variables_and_defaults(tf):
    variables = labelled(tf, "variable")
    for required in ("region", "compartment_ocid", "bucket_name"):
        assert required in variables and "default" not in variables[required], f"{required} must be required"
    assert variables["par_lifetime_hours"]["default"] == 8760  # one year
    assert unq(variables["object_name"]["default"]) == "all_MiniLM_L12_v2.onnx"
    assert unq(variables["bundle_sha256"]["default"]) == ""
    assert "namespace" in variables

    url = unq(variables["bundle_url"]["default"])
    assert ORACLE_PUBLIC_BUNDLE.match(url), url
    assert url.endswith("/o/all_MiniLM_L12_v2_augmented.zip")
    description = unq(variables["bundle_url"]["description"])
    assert "rotate" in description.lower() and "docs.oracle.com" in description


def test_no_secret_defaults_and_no_needless_sensitive(tf):
    assert secret_default_problems(labelled(tf, "variable")) == []


def test_secret_check_catches_bad_variables():
    """Negative control: the check above must be able to fail."""
    bad = load_tf({"bad.tf": textwrap.dedent('''
        variable "db_password" {
          type    = string
          default = "hunter2"
        }
        variable "oci_private_key" {
          type = string
        }
        variable "region" {
          type      = string
          sensitive = true
        }
        variable "model_url" {
          type    = string
          default = "https://objectstorage.eu-frankfurt-1.oraclecloud.com/p/AbCdEfGhIjKlMnOpQrStUvWxYz012345/n/mine/b/x/o/m.onnx"
        }
        variable "key" {
          type    = string
          default = "-----BEGIN RSA PRIVATE KEY-----"
        }
    ''')})
    problems = "\n".join(secret_default_problems(labelled(bad, "variable")))
    assert "db_password: looks secret but has a default" in problems
    assert "oci_private_key: looks secret but is not sensitive" in problems
    assert "region: marked sensitive" in problems
    assert "model_url: default is a pre-authenticated URL" in problems
    assert "key: default looks like a credential" in problems


# --- the PAR, its expiry and the output -----------------------------------------------------------


def test_par_is_read_only_on_one_object_with_fixed_expiry(tf):
    pars = of_type(tf, "oci_objectstorage_preauthrequest")
    assert list(pars) == ["minilm_onnx_read"]
    par = pars["minilm_onnx_read"]
    assert unq(par["access_type"]) == "ObjectRead"
    assert par["object_name"] == "${oci_objectstorage_object.minilm_onnx.object}"  # one object
    assert "object" not in par, "`object` is deprecated in favour of object_name"
    assert unq(par.get("bucket_listing_action", "Deny")) == "Deny"
    assert par["bucket"] == "${var.bucket_name}"
    assert par["namespace"] == "${local.namespace}"
    assert unq(par["name"])

    assert par["time_expires"] == "${terraform_data.par_expiry.output}"
    expiry = of_type(tf, "terraform_data")["par_expiry"]
    assert re.fullmatch(r'\$\{timeadd\(plantimestamp\(\), "\$\{var\.par_lifetime_hours\}h"\)\}', expiry["input"])
    (lifecycle,) = expiry["lifecycle"]
    assert lifecycle["ignore_changes"] == ["input"], "expiry would drift (and replace the PAR) on every plan"
    assert expiry["triggers_replace"] == ["${var.par_lifetime_hours}"]


def test_par_url_output_is_sensitive_and_full(tf):
    outputs = labelled(tf, "output")
    url = outputs["minilm_onnx_par_url"]
    assert url["sensitive"] is True
    assert unq(url["value"]) == "${local.object_storage_endpoint}${oci_objectstorage_preauthrequest.minilm_onnx_read.access_uri}"
    (locals_,) = [b for b in tf["locals"] if "object_storage_endpoint" in b]
    assert "https://objectstorage.${var.region}.oraclecloud.com" in locals_["object_storage_endpoint"]
    assert outputs["minilm_onnx_object_name"]["value"] == "${oci_objectstorage_object.minilm_onnx.object}"


# --- download and upload --------------------------------------------------------------------------


def test_upload_follows_the_download(tf):
    obj = of_type(tf, "oci_objectstorage_object")["minilm_onnx"]
    assert obj["object"] == "${var.object_name}"
    assert obj["bucket"] == "${var.bucket_name}"
    # unknown until the download has run: the provider stat()s a known `source` at plan time
    assert obj["source"] == "${terraform_data.minilm_bundle.output}"
    assert "${terraform_data.minilm_bundle}" in obj["depends_on"]
    (lifecycle,) = obj["lifecycle"]
    assert "${terraform_data.minilm_bundle}" in lifecycle["replace_triggered_by"]
    assert "content_md5" not in obj  # multipart upload: the stored MD5 never equals filemd5()


def test_download_step_is_strict(tf):
    bundle = of_type(tf, "terraform_data")["minilm_bundle"]
    assert bundle["triggers_replace"] == {"url": "${var.bundle_url}", "sha256": "${lower(var.bundle_sha256)}"}
    assert bundle["input"] == "${local.onnx_path}"
    (locals_,) = [b for b in tf["locals"] if "cache_dir" in b]
    assert unq(locals_["cache_dir"]) == "${path.module}/.cache"

    (provisioner,) = bundle["provisioner"]
    exec_ = provisioner['"local-exec"']
    assert [unq(x) for x in exec_["interpreter"]] == ["bash", "-c"]
    script = heredoc_body(exec_["command"])
    assert script.lstrip().startswith("set -euo pipefail")
    assert re.search(r"\bcurl\b[^\n]*--fail\b", script)
    assert '"$actual" != "$BUNDLE_SHA256"' in script
    assert "unzip -tq" in script


# --- the download script, for real, against a local HTTP server -----------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def run_download(tf, tmp_path):
    for tool in ("bash", "curl", "unzip"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not on PATH: the download script cannot run here")
    exec_ = of_type(tf, "terraform_data")["minilm_bundle"]["provisioner"][0]['"local-exec"']
    script = heredoc_body(exec_["command"])
    cache = tmp_path / "cache"

    def run(url: str, sha256: str = "") -> subprocess.CompletedProcess:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "BUNDLE_URL": url,
            "BUNDLE_SHA256": sha256,
            "CACHE_DIR": str(cache),
            "ZIP_NAME": "all_MiniLM_L12_v2_augmented.zip",
            "ONNX_MEMBER": "all_MiniLM_L12_v2.onnx",
        }
        return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=30)

    run.cache = cache
    return run


def _bundle(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


MODEL = b"\x08\x07fake-onnx-model" * 100


def test_download_extracts_the_model_and_verifies_checksum(served, run_download):
    root, base = served
    zipped = _bundle({"all_MiniLM_L12_v2.onnx": MODEL, "README-ALL_MINILM_L12_V2-augmented.txt": b"readme"})
    (root / "bundle.zip").write_bytes(zipped)
    good = hashlib.sha256(zipped).hexdigest()

    proc = run_download(f"{base}/bundle.zip", good)
    assert proc.returncode == 0, proc.stderr
    assert (run_download.cache / "all_MiniLM_L12_v2.onnx").read_bytes() == MODEL
    assert "verified" in proc.stdout

    (run_download.cache / "all_MiniLM_L12_v2.onnx").unlink()
    proc = run_download(f"{base}/bundle.zip", "0" * 64)
    assert proc.returncode != 0 and "mismatch" in proc.stderr
    assert not (run_download.cache / "all_MiniLM_L12_v2.onnx").exists()

    proc = run_download(f"{base}/bundle.zip")  # no checksum given: accepted, hash printed for pinning
    assert proc.returncode == 0, proc.stderr
    assert good in proc.stdout


def test_download_fails_on_http_error(served, run_download):
    _, base = served
    proc = run_download(f"{base}/rotated-away.zip")  # 404, as a rotated Oracle PAR would answer
    assert proc.returncode != 0
    assert "download failed" in proc.stderr
    assert not list(run_download.cache.glob("*.zip*")), "no partial download may be left behind"


def test_download_fails_on_non_zip_and_on_missing_model(served, run_download):
    root, base = served
    (root / "error.html").write_bytes(b"<html>not a zip</html>")
    proc = run_download(f"{base}/error.html")
    assert proc.returncode != 0 and "not a valid zip" in proc.stderr

    (root / "other.zip").write_bytes(_bundle({"something_else.onnx": MODEL}))
    proc = run_download(f"{base}/other.zip")
    assert proc.returncode != 0
    assert not (run_download.cache / "all_MiniLM_L12_v2.onnx").exists()


# --- git hygiene ----------------------------------------------------------------------------------


def _ignored(path: str) -> bool:
    proc = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=REPO, capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode == 0


def test_cache_and_state_are_git_ignored_but_lock_file_is_not():
    if shutil.which("git") is None:
        pytest.skip("git not on PATH")
    assert _ignored("terraform/.cache/all_MiniLM_L12_v2_augmented.zip")
    assert _ignored("terraform/.cache/all_MiniLM_L12_v2.onnx")
    assert _ignored("terraform/terraform.tfstate")  # holds the PAR URL
    assert _ignored("terraform/terraform.tfstate.backup")
    assert _ignored("terraform/.terraform/providers/x")
    assert not _ignored("terraform/.terraform.lock.hcl")  # pins provider checksums: commit it


def test_readme_uses_the_real_output_name(tf):
    readme = (TF_DIR / "README.md").read_text()
    assert "terraform -chdir=terraform output -raw minilm_onnx_par_url" in readme
    assert "minilm_onnx_par_url" in labelled(tf, "output")
    assert "terraform validate" in readme
