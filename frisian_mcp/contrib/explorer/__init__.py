"""The tool explorer: the MCP endpoint, browsable by people (docs/explorer.md).

Add ``"frisian_mcp.contrib.explorer"`` to ``INSTALLED_APPS`` and set
``FRISIAN_MCP["BROWSER_VIEW_CLASS"]`` to
``"frisian_mcp.contrib.explorer.views.ExplorerView"``.
"""
