-- source: FACTS.md §4 (DBMS_VECTOR.REBUILD_INDEX(idx_name => ...)) [DOC rebuild_index]

BEGIN
    DBMS_VECTOR.REBUILD_INDEX(idx_name => :idx_name);
END;
