-- source: FACTS.md §10 (plain SELECT by key) + §11.6 (CLOB fetched as str with fetch_lobs = False)

SELECT MESSAGE_ID, CONVERSATION_ID, ROLE, CONTENT, CITATIONS, CREATED_AT FROM MESSAGES WHERE MESSAGE_ID IN (:user_id, :answer_id) ORDER BY MESSAGE_ID
