"""The MCP face: the service's tools over the Model Context Protocol (server.py: HTTP at /mcp and stdio; tools.py:
the tools, each a translation to the chat's own service functions)."""
