"""The Oracle AI Database 26ai engine (python-oracledb thin). All its SQL is in statements.py."""
