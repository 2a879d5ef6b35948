"""frisian_mcp: serve a Django REST framework API to AI agents as MCP tools.

Add ``"frisian_mcp"`` to ``INSTALLED_APPS`` and mount
``path("mcp", include("frisian_mcp.urls"))``. Importing this package touches no
settings and no models.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0.dev0"
