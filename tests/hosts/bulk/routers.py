"""The host's router: bulk actions on every list route."""

from __future__ import annotations

from typing import Any

from rest_framework.routers import Route, SimpleRouter

#: The methods a list route takes beyond GET and POST.
BULK_ACTIONS = {"put": "bulk_update", "patch": "bulk_partial_update"}
BULK_ACTIONS["delete"] = "bulk_destroy"


class BulkRouter(SimpleRouter):
    """A ``SimpleRouter`` whose list routes also map the bulk actions."""

    def get_routes(self, viewset: Any) -> list[Any]:
        stock = self.routes
        self.routes = [
            route._replace(mapping={**route.mapping, **BULK_ACTIONS})
            if isinstance(route, Route) and not route.detail
            else route
            for route in stock
        ]
        try:
            return super().get_routes(viewset)
        finally:
            self.routes = stock
