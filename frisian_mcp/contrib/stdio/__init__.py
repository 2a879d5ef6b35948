"""The stdio transport for desktop clients: ``manage.py frisian_mcp_stdio``.

Enable it with ``"frisian_mcp.contrib.stdio"`` in ``INSTALLED_APPS``; the
README shows a desktop client's configuration.
"""
