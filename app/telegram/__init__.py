"""The Telegram bot: a client of this service's API (``ragctl telegram``); it never opens the database.

Modules: ``config`` (settings), ``backend`` (our API over HTTP, SSE included), ``state`` (chat → conversation,
durable), ``catalogue`` (what it says, English and Spanish), ``text`` (pure formatting and splitting),
``scoping`` (what /scope's argument names), ``replies`` (the streamed reply), ``concurrency`` (chats at once,
each in order, bounded), ``bot`` (handlers), ``runner`` (start-up checks, polling or webhook).
"""
