"""``python manage.py frisian_mcp_tools``: print the MCP tool surface.

The JSON output is deterministic (sorted keys, stable order). A tool whose
schema fails is left out and named on stderr (W003); only a failed discovery
exits 1.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from frisian_mcp.exceptions import ConfigurationError, HostError
from frisian_mcp.registry import ToolRegistry

__all__ = ["Command"]


class Command(BaseCommand):
    """Print the discovered tools as a table or as tools/list JSON."""

    help = "List the MCP tools frisian_mcp serves (table, JSON, or one tool's schema)."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--format``, ``--tool`` and ``--layout``."""
        parser.add_argument(
            "--format",
            choices=("table", "json"),
            default="table",
            help="table (default): one line per tool; json: the tools/list entries.",
        )
        parser.add_argument(
            "--tool",
            metavar="NAME",
            help="Print the full definition (schemas included) of one tool, as JSON.",
        )
        parser.add_argument(
            "--layout",
            choices=("flat", "dispatcher"),  # "dispatcher": its app installed
            help="Show this layout instead of the configured TOOL_LAYOUT.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        """Build the registry (every schema) and print it."""
        layout = options["layout"]
        started = time.perf_counter()
        try:
            # The problems are printed below, not logged as well.
            registry = ToolRegistry.from_settings(log=False)
        except HostError as exc:
            raise CommandError(f"Discovery failed: {exc}") from exc
        flat = [tool.definition() for tool in registry]
        try:
            definitions = registry.definitions(layout)
        except ConfigurationError as exc:  # a layout no installed app offers
            raise CommandError(str(exc)) from None
        for problem in registry.problems:
            self.stderr.write(
                f"Left out {problem.view}.{problem.action}: {problem.error}: "
                f"{problem.detail}"
                if problem.fatal
                else f"Degraded {problem.view}.{problem.action}: {problem.error}"
            )
        for name in registry.withheld:
            self.stderr.write(
                f"Left out {name}: it would end its caller's credentials "
                "(CREDENTIAL_TOOLS serves it)."
            )
        elapsed = time.perf_counter() - started
        if options["tool"]:
            self._print_one(options["tool"], flat, definitions)
        elif options["format"] == "json":
            self.stdout.write(
                json.dumps(definitions, indent=2, sort_keys=True, ensure_ascii=False)
            )
        else:
            self._print_table(registry, layout or registry.layout, definitions)
        if options["verbosity"] >= 2:
            self.stderr.write(f"Built {len(registry)} tools in {elapsed:.2f} s.")

    def _print_one(self, name: str, flat: list[Any], definitions: list[Any]) -> None:
        for definition in [*definitions, *flat]:
            if definition is not None and definition["name"] == name:
                self.stdout.write(
                    json.dumps(definition, indent=2, sort_keys=True, ensure_ascii=False)
                )
                return
        raise CommandError(
            f"No tool is named {name!r}; run without --tool to list them."
        )

    def _print_table(
        self, registry: ToolRegistry, layout: str, definitions: list[Any]
    ) -> None:
        arranged = registry.arranged(layout)
        if arranged is not None:
            self.stdout.write("\n".join(arranged.describe()))
            return
        width = max((len(tool.name) for tool in registry), default=10)
        for tool in registry:
            if tool.schema is None:
                continue
            endpoint = tool.endpoint
            self.stdout.write(
                f"{tool.name:<{width}}  {endpoint.method:<6} {endpoint.path}  {tool.title}"
            )
        self.stdout.write(f"{len(definitions)} tools.")
