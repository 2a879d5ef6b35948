"""A record's file fields as resource contents (ADR 0043, through ADR 0027).

Each file the serializer shows is read through the record's own
``FieldFile`` (the instance the view fetched and checked) and handed, as a
``FileResponse``, to the call hooks' ``map_response``: the files extra makes
it a resource within ``FILE_MAX_BYTES``. Without such a hook, file fields
stay URLs in the record's JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.http import FileResponse
from rest_framework import serializers

from frisian_mcp import hooks, routing
from frisian_mcp.conf import extra_settings
from frisian_mcp.contracts import BaseCallHook
from frisian_mcp.exceptions import HostError, ToolError, host_call
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, CallContext, JSONObject

__all__ = ["attach", "one"]


def attach(
    tool: Tool,
    call: Call,
    context: CallContext,
    data: Any,
    record: JSONObject,
    uri: Callable[[str], str],
) -> list[JSONObject]:
    """The record's files while their sum stays within ``FILE_MAX_BYTES``;
    those left out are named in ``record``'s ``_meta`` (size and cap)."""
    if not _carried():
        return []
    cap = getattr(extra_settings, "FILE_MAX_BYTES", None)
    budget = cap
    found, left_out = [], []
    for name in _file_fields(data):
        try:
            resource = one(tool, call, context, data, name, uri(name)) or {}
        except ToolError as exc:  # larger than a file the hook carries
            left_out.append({"field": name, "size": exc.extra.get("size")})
            continue
        except HostError:  # the storage failed (a file gone): left out too
            left_out.append({"field": name, "size": None})
            continue
        size = resource.get("_meta", {}).get("size", 0)
        if budget is not None and size > budget:
            left_out.append({"field": name, "size": size})
            continue
        budget = None if budget is None else budget - size
        found.append(resource)
    if left_out:
        for entry in left_out:
            entry["limit"] = cap
        record["_meta"] = {"files_left_out": left_out}
    return found


def one(
    tool: Tool, call: Call, context: CallContext, data: Any, name: str, uri: str
) -> JSONObject | None:
    """The file field ``name`` of the record as a resource at ``uri``;
    ``None`` when the record shows no file there. Raises the hooks'
    ToolError when none carries files or the file is too large."""
    field = _file_fields(data).get(name)
    if field is None:
        return None
    instance = data.serializer.instance
    stored = host_call(field.get_attribute, instance)
    handle = host_call(stored.open, "rb")
    response = FileResponse(handle, filename=str(stored.name).rpartition("/")[2])
    # The inner request's URL is what an error names: where REST serves it.
    path = urlsplit(str(data[name])).path
    request = routing.inner_request(context, tool.endpoint, path, "", b"")
    content = hooks.map_response(tool, call, request, response)
    for block in content.get("content", ()):
        if block.get("type") == "resource":
            return {**block["resource"], "uri": uri}
    raise ValueError("a hook's file content holds no resource")


def _file_fields(data: Any) -> dict[str, Any]:
    """The serializer's file fields the record shows (not null), by name."""
    serializer: Any = getattr(data, "serializer", None)
    if getattr(serializer, "instance", None) is None or not isinstance(data, dict):
        return {}
    fields = host_call(lambda: list(serializer.fields.items()))
    return {
        name: field
        for name, field in fields
        if isinstance(field, serializers.FileField) and data.get(name)
    }


def _carried() -> bool:
    """Whether a call hook turns files into content (the files extra)."""
    own = BaseCallHook.map_response
    return any(type(h).map_response is not own for h in hooks.call_hooks())
