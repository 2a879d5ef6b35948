"""The audit trail: one value-free record per request (docs/audit.md).

Enable it with ``"frisian_mcp.contrib.audit"`` in ``INSTALLED_APPS`` and a
handler for the ``frisian_mcp.audit`` logger at INFO.
"""
