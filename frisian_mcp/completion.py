"""``completion/complete``: values from the caller's own list views (ADR 0044).

A resource-template variable is completed by the list endpoint whose path is
the template's path cut before that variable's segment, run as its list tool
for the caller: its permissions, queryset, filter backends, paginator,
throttles, hooks and redaction. Nothing is suggested that the caller's
``GET`` of that list would not show (2025-11-25 server/utilities/completion
"Security": servers MUST validate inputs and SHOULD rate-limit; the host's
throttles do). A prompt argument completes through :mod:`~frisian_mcp.prompts`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from frisian_mcp import methods, prompts, resources
from frisian_mcp.conf import mcp_settings
from frisian_mcp.examples import schema_types
from frisian_mcp.exceptions import InternalError, InvalidParams, JSONRPCError, ToolError
from frisian_mcp.registry import ToolRegistry
from frisian_mcp.tools import Tool
from frisian_mcp.types import CallContext, ErrorCode, JSONObject, Kind

__all__ = ["complete", "listed_template", "variable_values"]

#: The specification's cap on one answer's values (schema ``CompleteResult``).
MAX_VALUES = 100
#: Failures of the list call that are the caller's to know: the rest (a
#: refusal, a bad filter) mean no suggestions, as a hidden list does.
_PASSED_ON = frozenset({ErrorCode.THROTTLED, ErrorCode.UNAVAILABLE})
_DECIMAL = re.compile(r"-?[0-9]{1,18}")


@methods.capability("completions")
def _declared(registry: Any) -> JSONObject | None:
    """Declared where something can be completed: a template or a prompt."""
    served = methods.served
    if served("resources/templates/list", registry) or served("prompts/list", registry):
        return {}
    return None


@methods.method("completion/complete", "completions")
def complete(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    """Answer one ``completion/complete`` request."""
    ref, argument = params.get("ref"), params.get("argument")
    given = params.get("context")
    known = given.get("arguments") if isinstance(given, dict) else None
    if (
        not isinstance(ref, dict)
        or not isinstance(argument, dict)
        or not isinstance(argument.get("name"), str)
        or not isinstance(argument.get("value"), str)
        or not isinstance(known if known is not None else {}, dict)
    ):
        raise InvalidParams(
            "Invalid params: completion/complete needs ref (ref/resource with a "
            "uri, or ref/prompt with a name), argument {name, value} (strings) "
            "and optionally context.arguments (an object of strings)."
        )
    name, value, known = argument["name"], argument["value"], known or {}
    if ref.get("type") == "ref/resource" and isinstance(ref.get("uri"), str):
        template = listed_template(call.context, ref["uri"])
        if template is None or name not in template.variables:
            raise _unknown("ref/resource")
        return _answer(
            variable_values(call.registry(), call.context, template, name, value, known)
        )
    if ref.get("type") == "ref/prompt" and isinstance(ref.get("name"), str):
        return _answer(_prompt_values(call, ref["name"], name, value))
    raise _unknown("ref")


def _prompt_values(
    call: methods.MethodCall, prompt: str, name: str, value: str
) -> tuple[list[str], int | None, bool]:
    """A prompt argument's values: a ``Record`` as its template's variable."""
    context = call.context
    key = prompts.record_argument(prompt, name)
    if key is not None and any(p.name == prompt for p in prompts.visible(context)):
        template = next((t for t in resources.templates(context) if t.key == key), None)
        if template is None:  # hidden: the prompt is too (ADR 0044)
            raise _unknown("ref/prompt")
        variable = template.variables[-1]
        return variable_values(call.registry(), context, template, variable, value, {})
    found = prompts.argument_values(context, prompt, name, value)
    if found is None:
        raise _unknown("ref/prompt")
    if len(found) < MAX_VALUES:
        return found, len(found), False
    return found[:MAX_VALUES], None, True  # cut by the prompt: more may match


def variable_values(
    registry: ToolRegistry,
    context: CallContext,
    template: resources.Template,
    variable: str,
    value: str,
    known: Mapping[str, Any],
) -> tuple[list[str], int | None, bool]:
    """Values of ``variable`` the caller's list view shows: values, total, more."""
    retrieve = registry.get(template.tool)
    position = template.variables.index(variable)
    earlier = template.variables[:position]
    missing = [v for v in earlier if not isinstance(known.get(v), str)]
    if missing:
        raise InvalidParams(
            f"Invalid params: complete {variable} after {', '.join(missing)}: "
            "pass their values in context.arguments.",
            data={"code": ErrorCode.INVALID_ARGUMENT.value, "arguments": missing},
        )
    lister = retrieve and _list_tool(registry, context, retrieve, template, position)
    if not lister or retrieve is None:
        return [], None, False
    arguments = _list_arguments(lister, template, known, position)
    search = _search_parameter(lister)
    if value and search:
        arguments["filters"] = {search: value}
    try:
        page = registry.dispatch(lister.name, arguments, context)
    except ToolError as exc:
        if exc.code in _PASSED_ON:
            raise _passed_on(exc) from exc
        return [], None, False
    rows = page.get("results") if isinstance(page, dict) else None
    if not isinstance(rows, list):
        return [], None, False
    # The last variable is the record's own lookup; an earlier one a parent's,
    # which the list view of the parents names.
    last = position == len(template.variables) - 1
    key = _lookup_key(retrieve if last else lister, rows) if rows else ""
    if key is None:  # the records do not show the lookup value
        return [], None, False
    values = [
        str(r[key]) for r in rows if isinstance(r, dict) and r.get(key) is not None
    ]
    more = bool(page.get("has_more"))
    if value and not search:
        matching = [v for v in values if v.casefold().startswith(value.casefold())]
        return matching, None, more or len(matching) < len(values)
    count = page.get("count")
    return values, count if isinstance(count, int) else None, more


def listed_template(context: CallContext, uri: str) -> resources.Template | None:
    """The template a ``ref/resource`` names (its uriTemplate, or a URI of
    it: the key decides), if it is listed to the caller."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme.lower() != mcp_settings.RESOURCE_SCHEME:
        return None
    key = parts.netloc.lower()
    return next((t for t in resources.templates(context) if t.key == key), None)


def _list_tool(
    registry: ToolRegistry,
    context: CallContext,
    retrieve: Tool,
    template: resources.Template,
    position: int,
) -> Tool | None:
    """The list tool at the retrieve path cut before variable ``position``,
    if the caller sees it."""
    path = retrieve.endpoint.path
    cut = path[: path.index("{" + template.kwargs[position] + "}")]
    seen = registry.visible(context)
    for tool in registry:
        if (
            tool.kind == Kind.LIST
            and tool.endpoint.path == cut
            and tool.path_prefix == retrieve.path_prefix
        ):
            return tool if seen(tool) and tool.schema is not None else None
    return None


def _list_arguments(
    lister: Tool, template: resources.Template, known: Mapping[str, Any], position: int
) -> JSONObject:
    """The list call's path arguments (the earlier variables) and page size."""
    schema = lister.schema
    assert schema is not None  # _list_tool returns only tools with a schema
    by_kwarg = {kwarg: name for name, kwarg in schema.path_arguments.items()}
    arguments: JSONObject = {
        by_kwarg[kwarg]: known[variable]
        for variable, kwarg in zip(
            template.variables[:position], template.kwargs[:position], strict=True
        )
        if kwarg in by_kwarg
    }
    # context.arguments are strings; a URL variable the schema types as an
    # integer (a pk) is sent as one, as the URL resolver would convert it.
    properties = schema.input_schema.get("properties") or {}
    for name, value in arguments.items():
        types = schema_types(properties.get(name) or {})
        if "integer" in types and "string" not in types and _DECIMAL.fullmatch(value):
            arguments[name] = int(value)
    if "page_size" in schema.protocol_arguments:
        arguments["page_size"] = min(MAX_VALUES, mcp_settings.MAX_PAGE_SIZE)
    return arguments


def _search_parameter(lister: Tool) -> str | None:
    """The search filter the view's backends declare (DRF's ``search``)."""
    filters = lister.schema.filter_parameters if lister.schema else {}
    for backend in getattr(lister.endpoint.view_class, "filter_backends", ()) or ():
        name = getattr(backend, "search_param", None)
        if isinstance(name, str) and name in filters:
            return name
    return None


def _lookup_key(tool: Tool, rows: list[Any]) -> str | None:
    """The record field of ``rows`` that holds ``tool``'s view's lookup value."""
    if not isinstance(rows[0], dict):
        return None
    field = getattr(tool.endpoint.view_class, "lookup_field", "pk")
    model = tool.model
    candidates = [field]
    if field == "pk":
        candidates = ["id", "pk"] + ([model._meta.pk.name] if model else [])
    return next((c for c in candidates if c in rows[0]), None)


def _answer(found: tuple[list[str], int | None, bool]) -> JSONObject:
    values, total, more = found
    completion: JSONObject = {"values": values[:MAX_VALUES], "hasMore": more}
    if total is not None:
        completion["total"] = total
    return {"completion": completion}


def _unknown(what: str) -> InvalidParams:
    return InvalidParams(
        f"Invalid params: {what} names no resource template or prompt you can "
        "complete, or argument.name is not one of its variables or arguments.",
        data={"code": ErrorCode.INVALID_ARGUMENT.value},
    )


def _passed_on(exc: ToolError) -> JSONRPCError:
    data = {k: v for k, v in exc.payload().items() if k not in ("message", "tool")}
    if exc.code == ErrorCode.UNAVAILABLE:
        return InternalError(exc.message, data=data, http_status=503)
    return InvalidParams(exc.message, data=data)
