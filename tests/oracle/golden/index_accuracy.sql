-- source: FACTS.md §4 (DBMS_VECTOR.INDEX_ACCURACY_QUERY(owner_name, index_name, qv, top_k, target_accuracy) RETURN VARCHAR2) [DOC]

BEGIN
    :report := DBMS_VECTOR.INDEX_ACCURACY_QUERY(USER, :index_name, :qv, :top_k, :target_accuracy);
END;
