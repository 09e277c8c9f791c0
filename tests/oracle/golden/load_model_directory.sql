-- source: FACTS.md §5 (LOAD_ONNX_MODEL(directory, file_name, model_name, metadata)) [DOC e2e] + REVIEW-2 W5 (23ai: metadata has no default)

BEGIN
    DBMS_VECTOR.LOAD_ONNX_MODEL(directory => :dir_name, file_name => :file_name, model_name => :model_name,
        metadata => JSON('{"function" : "embedding", "embeddingOutput" : "embedding", "input": {"input": ["DATA"]}}'));
END;
