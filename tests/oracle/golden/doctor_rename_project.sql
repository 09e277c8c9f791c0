-- source: FACTS.md §10 (plain UPDATE; fires PROJECTS_RAG_DIRTY_TRG)

UPDATE PROJECTS SET NAME = :project_name WHERE PROJECT_ID = :project_id
