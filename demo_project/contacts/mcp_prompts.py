"""The contacts app's prompts, discovered by frisian_mcp as the admin finds ``admin.py``.

Each reads through the caller's own views, so it shows no more than the
caller's REST calls would (ADR 0044).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from frisian_mcp.exceptions import ToolError
from frisian_mcp.prompts import PromptContext, Record, RecordValue, embed, prompt, user


@prompt(title="Summarise a contact")
def contact_summary(
    context: PromptContext,
    *,
    contact: Annotated[RecordValue, Record("contacts", "The contact")],
    tone: Annotated[Literal["brief", "full"], "How much to write"] = "brief",
) -> list[Any]:
    """Summarise a contact and the files kept with them."""
    filters = {"contact": contact.data["id"]}
    try:
        files = context.call_tool("attachments__list", {"filters": filters})
    except ToolError:  # attachments are not served, or not to this caller
        names = ["(not visible to you)"]
    else:
        names = [f.get("filename") or "(unnamed)" for f in files["results"]]
    length = "in two sentences" if tone == "brief" else "in a full paragraph"
    return [
        embed(contact),
        user("Files kept with them: " + (", ".join(names) or "none") + "."),
        user(f"Summarise who this contact is and how to reach them, {length}."),
    ]
