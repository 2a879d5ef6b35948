"""Django app configuration: the system checks, the receivers, the warm-up."""

from __future__ import annotations

from django.apps import AppConfig

__all__ = ["FrisianMCPConfig"]


class FrisianMCPConfig(AppConfig):
    """The ``frisian_mcp`` app."""

    name = "frisian_mcp"
    verbose_name = "frisian_mcp"

    def ready(self) -> None:
        """Register the system checks and the permission-change receivers.

        The receivers connect here, as Django advises, so that every process
        (web and task workers, management commands) marks the listings'
        kept answers stale. A server process starts its warm-up (ADR 0032).
        Each app's ``mcp_prompts`` module declares its prompts (ADR 0044).
        Extras in ``contrib`` register their own parts.
        """
        from django.utils.module_loading import autodiscover_modules

        # Resources and completion register their methods when the endpoint
        # module loads (jsonrpc): django.setup() alone builds no registry.
        from frisian_mcp import checks, hooks, levels, prompts, rights, warmup  # noqa: F401

        autodiscover_modules("mcp_prompts")
        rights.watch_permissions()
        warmup.start()
