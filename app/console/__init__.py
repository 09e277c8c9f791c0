"""The operator console: server-rendered pages under /console (app/console/routes.py), another face of
the same services, like the API, the CLI and the Telegram bot."""
