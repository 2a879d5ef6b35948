"""Registry: build the tools, guard their arguments, look them up; no HTTP.

Files:

* ``core.py``       ``ToolRegistry`` (build, look up, the ``dispatch``
  pipeline) and the per-process cache (``get_registry``).
* ``tools.py``      ``Tool``: one endpoint as a tool; names, titles,
  annotations, the ``tools/list`` entry.
* ``validation.py`` JSON Schema validation that reports every problem
  without echoing caller values.
* ``results.py``    what the view answered → structured result or typed error.
"""

from __future__ import annotations

from frisian_mcp.registry.core import ToolRegistry, get_registry, reset_registry
from frisian_mcp.registry.tools import TOOL_NAME_PATTERN, Tool

__all__ = [
    "TOOL_NAME_PATTERN",
    "Tool",
    "ToolRegistry",
    "get_registry",
    "reset_registry",
]
