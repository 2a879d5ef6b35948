"""Confirmation before destructive tools run (docs/safety.md).

Enable it with ``"frisian_mcp.contrib.confirm"`` in ``INSTALLED_APPS``,
``"frisian_mcp.contrib.confirm.hooks.ConfirmationHook"`` in
``FRISIAN_MCP["CALL_HOOKS"]`` and the tools in ``FRISIAN_MCP["CONFIRM"]``.
"""
