"""A URLconf without the MCP endpoint (for check W001)."""

from __future__ import annotations

from tests.urls import router

urlpatterns = router.urls
