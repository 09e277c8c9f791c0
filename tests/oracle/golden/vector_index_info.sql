-- source: FACTS.md §4 (USER_INDEXES index_type/index_subtype) [DOC guidelines]

SELECT INDEX_TYPE, INDEX_SUBTYPE, STATUS FROM USER_INDEXES WHERE INDEX_NAME = :index_name
