-- source: FACTS.md §5 (USER_MINING_MODELS existence check) [DOC refrn]

SELECT COUNT(*) FROM USER_MINING_MODELS WHERE MODEL_NAME = :model_name
