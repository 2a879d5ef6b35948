"""The audit app: connects its receivers to the core's request signals."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["AuditConfig"]


class AuditConfig(AppConfig):
    """``frisian_mcp.contrib.audit``."""

    name = "frisian_mcp.contrib.audit"
    label = "frisian_mcp_audit"
    verbose_name = "frisian_mcp audit trail"

    def ready(self) -> None:
        """Connect to :data:`frisian_mcp.hooks.request_started` and ``_finished``."""
        from frisian_mcp.contrib.audit import records
        from frisian_mcp.hooks import request_finished, request_started

        request_started.connect(records.started, dispatch_uid="frisian_mcp.audit")
        request_finished.connect(records.finished, dispatch_uid="frisian_mcp.audit")
