"""The fleet store: schemas and visible tool sets shared by every worker.

Add ``"frisian_mcp.contrib.fleet"`` to ``INSTALLED_APPS`` and set
``FRISIAN_MCP["STORE_BACKEND"] = "frisian_mcp.contrib.fleet.store.FleetStore"``
(docs/fleet.md, ADR 0023). The shared cache is advice: down or slow, tools
are listed and called from each process's own work.
"""
