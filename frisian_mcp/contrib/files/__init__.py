"""Files through tools (docs/files.md, ADR 0027).

Enable it with ``"frisian_mcp.contrib.files"`` in ``INSTALLED_APPS`` and
``"frisian_mcp.contrib.files.hooks.FileHook"`` in
``FRISIAN_MCP["CALL_HOOKS"]``; ``FILE_MAX_BYTES`` caps a file either way.
"""
