-- source: FACTS.md §12.3 (INDEX_ACCURACY_QUERY with named arguments) [DOC] + §12.10 (array('f') into PL/SQL) [CODE]

BEGIN
    :report := DBMS_VECTOR.INDEX_ACCURACY_QUERY(owner_name => USER, index_name => :index_name, qv => :qv,
                                                top_k => :top_k, target_accuracy => :target_accuracy);
END;
