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
        """Connect to :data:`frisian_mcp.hooks.request_started` and ``_finished``,
        and to ``part_started`` and ``part_finished`` (a streamed call's worker)."""
        from frisian_mcp import hooks
        from frisian_mcp.contrib.audit import records

        uid = "frisian_mcp.audit"
        hooks.request_started.connect(records.started, dispatch_uid=uid)
        hooks.part_started.connect(records.started, dispatch_uid=uid)
        hooks.part_finished.connect(records.counted, dispatch_uid=uid)
        hooks.request_finished.connect(records.finished, dispatch_uid=uid)
