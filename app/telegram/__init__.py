"""The Telegram bot: a client of this service's HTTP API (``ragctl telegram``); it never opens the database.

Modules: ``config`` (settings), ``backend`` (our API over HTTP, SSE included), ``state`` (chat → conversation,
durable), ``text`` (pure formatting and splitting), ``replies`` (the streamed reply), ``bot`` (handlers, polling).
"""
