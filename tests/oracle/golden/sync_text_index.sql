-- source: FACTS.md §8B (CTX_DDL.SYNC_INDEX; implicit commit, never in a trigger) [DOC ccref] + REVIEW-2 W7 (locking => CTX_DDL.LOCK_NOWAIT)

BEGIN
    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, locking => CTX_DDL.LOCK_NOWAIT);
END;
