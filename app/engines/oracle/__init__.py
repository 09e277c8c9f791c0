"""The Oracle AI Database 26ai engine (python-oracledb thin). All its SQL is in the *_statements.py modules."""
