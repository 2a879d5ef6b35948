"""The dcim app's prompts, discovered by frisian_mcp as the admin finds ``admin.py``.

Each reads through the caller's own views, so it shows no more than the
caller's REST calls would (ADR 0044).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from demo_project.dcim.models import Device
from frisian_mcp.prompts import PromptContext, Record, RecordValue, embed, prompt, user


@prompt(title="Review a site")
def site_review(
    context: PromptContext,
    *,
    site: Annotated[RecordValue, Record("dcim__sites", "The site")],
    status: Annotated[Device.Status | None, "Only devices of this status"] = None,
) -> list[Any]:
    """Review a site and its devices: what runs there, and what needs attention."""
    filters: dict[str, Any] = {"site": site.data["id"]}
    if status is not None:
        filters["status"] = status.value
    devices = context.call_tool("dcim__devices__list", {"filters": filters})
    more = "\n(More devices exist than this page.)" if devices["has_more"] else ""
    return [
        embed(site),
        user(
            "The site's devices, as the device list shows them:\n"
            f"{json.dumps(devices['results'], indent=2)}{more}"
        ),
        user(
            "Review this site for an operations hand-over: summarise what runs "
            "there, list devices that are offline, planned or being "
            "decommissioned, and point out devices without a serial number."
        ),
    ]
