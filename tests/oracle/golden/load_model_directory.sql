-- source: FACTS.md §5 (DBMS_VECTOR.LOAD_ONNX_MODEL(directory, file_name, model_name)) [DOC e2e]

BEGIN
    DBMS_VECTOR.LOAD_ONNX_MODEL(directory => :dir_name, file_name => :file_name, model_name => :model_name);
END;
