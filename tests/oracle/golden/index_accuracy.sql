-- source: FACTS.md §4 + §12.3 (DBMS_VECTOR.INDEX_ACCURACY_QUERY is overloaded: named arguments select the target_accuracy NUMBER version) [DOC 26/vecse/index_accuracy_query.html]

BEGIN
    :report := DBMS_VECTOR.INDEX_ACCURACY_QUERY(owner_name => USER, index_name => :index_name, qv => :qv,
        top_k => :top_k, target_accuracy => :target_accuracy);
END;
