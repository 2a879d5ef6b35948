"""Optional features of frisian_mcp, each behind a documented core hook.

The core (everything outside this package) imports nothing from here. Each
extra is enabled by its app in ``INSTALLED_APPS`` and, where the core calls
out to it, by the setting that names its class (ADR 0021).
"""
