-- source: FACTS.md §10 (plain SELECT with named binds; identifiers from EntitySpec)

SELECT EXTERNAL_ID, EMPLOYEE_ID FROM EMPLOYEES
WHERE SOURCE = :source_name AND EXTERNAL_ID IN (:k0)
