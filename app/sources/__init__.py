"""Other trackers as sources: Jira (files, Server/Data Center REST v2, Cloud REST v3) and GitHub Issues.

One pipeline (``pipeline.py``): a source fetches pages of issues, ``jira.py`` / ``github.py`` map them to
the neutral records of ``model.py`` (pure functions, ``mapping.py`` holds the tables), and the pipeline
upserts them through the same record path as the API and reconciles deletions. ``http.py`` is the one
retrying HTTP client; ``markup.py`` turns Jira's wiki markup and ADF into plain text.
"""
