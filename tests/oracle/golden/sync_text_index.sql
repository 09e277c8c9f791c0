-- source: FACTS.md §8B (CTX_DDL.SYNC_INDEX; implicit commit, never in a trigger) [DOC ccref]

BEGIN
    CTX_DDL.SYNC_INDEX(:idx_name);
END;
