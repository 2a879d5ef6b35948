"""Dispatcher tools for large APIs: ``TOOL_LAYOUT = "dispatcher"``.

Enable it with ``"frisian_mcp.contrib.dispatchers"`` in ``INSTALLED_APPS``;
docs/index.md ("Large APIs") describes the layout, docs/settings.md its
settings.
"""
