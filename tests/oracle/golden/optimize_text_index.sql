-- source: FACTS.md §8B (CTX_DDL on the search index; implicit commit) + DOC 26/ccref/optimize_index.html (FULL removes deleted rows); idx_name/optlevel names from ccref 8.1.6/9.0.1 syntax, unconfirmed on 26ai

BEGIN
    CTX_DDL.OPTIMIZE_INDEX(idx_name => :idx_name, optlevel => 'FULL');
END;
