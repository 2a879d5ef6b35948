"""Cleanup of orphaned empty rows: ``manage.py frisian_mcp_cleanup``.

Enable it with ``"frisian_mcp.contrib.cleanup"`` in ``INSTALLED_APPS``;
docs/cleanup.md has the rules, the options and the guarantees.
"""
