-- source: FACTS.md §8B (CTX_DDL.SYNC_INDEX) [DOC ccref] + REVIEW-2 W7 (default LOCK_WAIT kept, maxtime in minutes)

BEGIN
    CTX_DDL.SYNC_INDEX(idx_name => :idx_name, maxtime => :maxtime_min);
END;
