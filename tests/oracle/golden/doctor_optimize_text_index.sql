-- source: FACTS.md §8B + REVIEW-2 U4 (CTX_DDL.OPTIMIZE_INDEX named idx_name/optlevel/maxtime; maxtime 0 = minimal) [DOC ccref 8.1.6, 26 optimize_index]

BEGIN
    CTX_DDL.OPTIMIZE_INDEX(idx_name => :idx_name, optlevel => 'FULL', maxtime => 0);
END;
