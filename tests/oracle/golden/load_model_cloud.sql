-- source: FACTS.md §5 (DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD, credential NULL for a pre-authenticated URI) [DOC]

BEGIN
    DBMS_VECTOR.LOAD_ONNX_MODEL_CLOUD(model_name => :model_name, credential => NULL, uri => :model_uri,
        metadata => JSON('{"function" : "embedding", "embeddingOutput" : "embedding", "input": {"input": ["DATA"]}}'));
END;
