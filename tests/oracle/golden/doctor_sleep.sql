-- source: FACTS.md §12.3 (an anonymous block, as INDEX_ACCURACY) + DOC arpls DBMS_SESSION.SLEEP — REVIEW-4 §4.5

BEGIN
    DBMS_SESSION.SLEEP(:seconds);
END;
