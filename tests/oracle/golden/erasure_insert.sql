-- source: FACTS.md §11.6 (str into CLOB, bytes into BLOB by INSERT, PYDOC lob_data.rst) + §10

INSERT INTO ERASURE_JOBS (EMPLOYEE_ID, STEP, DOCUMENTS, REPORT, OUTCOME, HELD)
VALUES (:employee_id, 'delete', :documents, :report, :outcome, :held)
