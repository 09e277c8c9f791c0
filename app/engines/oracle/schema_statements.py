"""The Oracle statements of the schema the engine runs on: the migration runner's bookkeeping and catalogue reads,
the ONNX model's provisioning, the vector and text indexes' maintenance and status, and the readiness probe
(app/engines/oracle/migrate.py, migration_objects.py, engine.py, status.py). The rules of statements.py hold here.
"""

from __future__ import annotations

# --- migrations runner ----------------------------------------------------------------------

# source: FACTS.md §10 (plain DDL; identity clause per sqlrf) — the runner's own bookkeeping table
CREATE_VERSION_TABLE = (
    "CREATE TABLE RAG_SCHEMA_VERSION (\n"
    "    VERSION     NUMBER(10) CONSTRAINT RAG_SCHEMA_VERSION_PK PRIMARY KEY,\n"
    "    DESCRIPTION VARCHAR2(200) NOT NULL,\n"
    "    APPLIED_AT  TIMESTAMP DEFAULT SYS_EXTRACT_UTC(SYSTIMESTAMP) NOT NULL\n"
    ")"
)
# source: FACTS.md §4 (USER_* dictionary views, as USER_INDEXES there) — does the version table exist?
VERSION_TABLE_EXISTS = "SELECT COUNT(*) FROM USER_TABLES WHERE TABLE_NAME = 'RAG_SCHEMA_VERSION'"
# source: FACTS.md §10 (plain SELECT) — versions already applied
APPLIED_VERSIONS = "SELECT VERSION FROM RAG_SCHEMA_VERSION ORDER BY VERSION"
# source: FACTS.md §10 (plain INSERT with binds) — record one applied version
RECORD_VERSION = "INSERT INTO RAG_SCHEMA_VERSION (VERSION, DESCRIPTION) VALUES (:version_no, :version_desc)"
# source: FACTS.md §4 (USER_* dictionary views) + REVIEW-3 U5 — a table's columns, when a migration's CREATE TABLE
#         or ALTER TABLE ADD meets ORA-00955 / ORA-01430: is the existing object the statement's own?
MIGRATION_TABLE_COLUMNS = "SELECT COLUMN_NAME FROM USER_TAB_COLUMNS WHERE TABLE_NAME = :table_name"
# source: FACTS.md §4 (USER_INDEXES, as VECTOR_INDEX_INFO) + REVIEW-3 U5 — the table an existing index is on
MIGRATION_INDEX_TABLE = "SELECT TABLE_NAME FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
# source: FACTS.md §4 (a USER_* catalogue read, as USER_INDEXES above; the view: Oracle Reference USER_CONSTRAINTS) — the table
# an existing constraint is on (REVIEW-3 U5 for ALTER TABLE ... ADD CONSTRAINT, V16)
MIGRATION_CONSTRAINT_TABLE = "SELECT TABLE_NAME FROM USER_CONSTRAINTS WHERE CONSTRAINT_NAME = :constraint_name"
# source: FACTS.md §10 (DPY-7000 => read USER_ERRORS) — compilation errors after a warning
COMPILATION_ERRORS = (
    "SELECT NAME, TYPE, LINE, POSITION, TEXT FROM USER_ERRORS ORDER BY NAME, TYPE, SEQUENCE"
)

# --- model provisioning ---------------------------------------------------------------------

# source: FACTS.md §5 (Check existence: USER_MINING_MODELS, DOC refrn)
MODEL_EXISTS = "SELECT COUNT(*) FROM USER_MINING_MODELS WHERE MODEL_NAME = :model_name"
# The embedding metadata of an ONNX model: the default of the 26ai signatures, passed explicitly because the 23ai
# LOAD_ONNX_MODEL has no default for it (PLS-00306 on 23.4-23.x without it); both versions' examples pass it.
_METADATA_EMBEDDING = (
    "JSON('{\"function\" : \"embedding\", \"embeddingOutput\" : \"embedding\", \"input\": {\"input\": [\"DATA\"]}}')"
)
# source: FACTS.md §5 (LOAD_ONNX_MODEL from a directory object; names bindable) + REVIEW-2 W5 (DOC 23 and 26
#         vecse/load_onnx_model-procedure.html: `metadata JSON` without a default on 23ai)
LOAD_MODEL_DIRECTORY = (
    "BEGIN\n"
    "    DBMS_VECTOR.LOAD_ONNX_MODEL(directory => :dir_name, file_name => :file_name, model_name => :model_name,\n"
    f"        metadata => {_METADATA_EMBEDDING});\n"
    "END;"
)
# source: FACTS.md §5 (LOAD_ONNX_MODEL_CLOUD, DOC: pre-authenticated URI => credential NULL); the metadata both doc
#         versions default to, passed as their examples pass it (DOC 23 and 26 vecse/load_onnx_model_cloud.html)
LOAD_MODEL_CLOUD = (
    "BEGIN\n"
    "    DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(model_name => :model_name, credential => NULL, uri => :model_uri,\n"
    f"        metadata => {_METADATA_EMBEDDING});\n"
    "END;"
)

# --- vector / text index maintenance --------------------------------------------------------

# source: FACTS.md §4 (DBMS_VECTOR.REBUILD_INDEX(idx_name => ...), DOC rebuild_index)
REBUILD_VECTOR_INDEX = "BEGIN\n    DBMS_VECTOR.REBUILD_INDEX(idx_name => :idx_name);\nEND;"
# source: FACTS.md §4 (USER_INDEXES index_type/index_subtype, DOC guidelines)
VECTOR_INDEX_INFO = (
    "SELECT INDEX_TYPE, INDEX_SUBTYPE, STATUS FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
)
# source: FACTS.md §8B + REVIEW-2 W10 (DOC refrn ALL_INDEXES DOMIDX_STATUS/DOMIDX_OPSTATUS; a domain index whose
#         build failed keeps STATUS VALID with DOMIDX_OPSTATUS FAILED, ORA-29861 [DOC error-help])
TEXT_INDEX_INFO = (
    "SELECT INDEX_TYPE, STATUS, DOMIDX_STATUS, DOMIDX_OPSTATUS FROM USER_INDEXES WHERE INDEX_NAME = :index_name"
)
# source: FACTS.md §1 (VECTOR column fetched as array('f')) — a stored vector to probe the index with
SAMPLE_VECTOR = "SELECT EMBEDDING FROM RAG_CHUNK WHERE EMBEDDING IS NOT NULL FETCH FIRST 1 ROWS ONLY"
# source: FACTS.md §4 + §12.3 (INDEX_ACCURACY_QUERY is overloaded on its fifth parameter: named arguments pick
# the TARGET_ACCURACY NUMBER version, DOC 26/vecse/index_accuracy_query.html)
INDEX_ACCURACY = (
    "BEGIN\n"
    "    :report := DBMS_VECTOR.INDEX_ACCURACY_QUERY(owner_name => USER, index_name => :index_name, qv => :qv,\n"
    "        top_k => :top_k, target_accuracy => :target_accuracy);\n"
    "END;"
)

# source: FACTS.md §4 (rebuild fails on 0 vectors, DIA-51875) — count vectors before rebuilding
COUNT_VECTORS = "SELECT COUNT(*) FROM RAG_CHUNK WHERE EMBEDDING IS NOT NULL"

# --- health ---------------------------------------------------------------------------------

# source: FACTS.md §10 (plain INSERT with binds; rolled back at once) — readiness: the schema takes a write now
READY_PROBE = "INSERT INTO RAG_SETTINGS (SETTING_KEY, SETTING_VALUE) VALUES (:setting_key, 'probe')"

# --- `ragctl oracle migration-rerun` and its catalogue reads (app/engines/oracle/migrate.py) ---------------

# source: FACTS.md §10 (plain DELETE with a scalar subquery) — `ragctl oracle migration-rerun` (REVIEW-4 U2): the
#         newest version forgotten, as a run that died before its version row leaves it
DELETE_NEWEST_VERSION = "DELETE FROM RAG_SCHEMA_VERSION WHERE VERSION = (SELECT MAX(VERSION) FROM RAG_SCHEMA_VERSION)"
# source: FACTS.md §4 (USER_* dictionary views) — the schema's objects and columns, before and after the rerun
CATALOGUE_OBJECTS = (
    "SELECT OBJECT_TYPE, OBJECT_NAME, STATUS FROM USER_OBJECTS WHERE OBJECT_NAME NOT LIKE 'BIN$%'\n"
    "ORDER BY OBJECT_TYPE, OBJECT_NAME"
)
# source: FACTS.md §4 (USER_* dictionary views)
CATALOGUE_COLUMNS = (
    "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, NULLABLE FROM USER_TAB_COLUMNS ORDER BY TABLE_NAME, COLUMN_ID"
)
