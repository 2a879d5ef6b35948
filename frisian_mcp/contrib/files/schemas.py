"""What the file hook adds to a tool's schema (docs/files.md).

A serializer ``FileField`` (``ImageField``) becomes a string argument with
``contentEncoding: base64`` and, beside it, an optional ``<field>_filename``
argument; a tool whose action answers a file (its declared response or its
renderers are not JSON) says so and claims no outputSchema.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers

from frisian_mcp import spectacular
from frisian_mcp.exceptions import HostError, host_call
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import JSONObject, Kind

__all__ = ["FILE_NOTICE", "NAME_SUFFIX", "file_schema", "upload_fields"]

#: The companion argument of a file argument ``x`` is ``x`` + this.
NAME_SUFFIX = "_filename"
FILE_NOTICE = (
    "Answers a file: the result's content holds it as an embedded resource "
    "(text, or base64 bytes in blob) with its mimeType, and its name."
)
_UPLOAD_NOTICE = (
    "File arguments take the file's bytes base64-encoded; name the file in "
    "the matching *_filename argument."
)


def upload_fields(tool: Tool, schema: ToolSchema) -> dict[str, str]:
    """The tool's file arguments, by argument name: their field names."""
    properties = schema.input_schema.get("properties", {})
    return {
        arg: schema.body_fields.get(arg, arg)
        for arg, prop in properties.items()
        if isinstance(prop, dict) and prop.get("contentEncoding") == "base64"
    }


def file_schema(tool: Tool, schema: ToolSchema) -> ToolSchema:
    """``schema`` with file arguments, and saying whether it answers a file."""
    endpoint, generator = tool.endpoint, SchemaGenerator()
    writes = endpoint.method in ("POST", "PUT", "PATCH")
    if not writes and tool.kind != Kind.ACTION:
        return schema  # DRF's own reads and deletes answer JSON
    with spectacular.building():
        try:
            view = spectacular.make_view(endpoint, generator)
            auto = spectacular.inspector(view, endpoint, generator, tool.path_prefix)
            body = None
            if writes and schema.body_argument is None:
                body = spectacular.serializer(view, auto.get_request_serializer)
            answers_file = tool.kind == Kind.ACTION and _answers_file(view, auto)
        except HostError:
            return schema  # the core's schema build reported it already
    if answers_file:
        schema = dataclasses.replace(
            schema,
            description="\n\n".join(filter(None, (schema.description, FILE_NOTICE))),
            shapes=None,
        )
    files = _file_fields(body)
    return _with_uploads(schema, files, endpoint.method) if files else schema


def _answers_file(view: Any, auto: Any) -> bool:
    """Whether the action declares a non-JSON answer or renders no JSON."""
    declared = host_call(auto.get_response_serializers)
    if declared is OpenApiTypes.BINARY:
        return True
    if isinstance(declared, dict):
        for key, value in declared.items():
            media = key[1] if isinstance(key, tuple) and len(key) > 1 else None
            if value is OpenApiTypes.BINARY or (media and not _json(media)):
                return True
    renderers = host_call(view.get_renderers)
    return bool(renderers) and not any(_json(r.media_type) for r in renderers)


def _json(media_type: str) -> bool:
    kind = media_type.split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")


def _file_fields(serializer: Any) -> dict[str, Any]:
    fields = getattr(serializer, "fields", None)
    if fields is None:
        return {}
    found = host_call(lambda: list(fields.items()))
    return {
        name: field
        for name, field in found
        if isinstance(field, serializers.FileField) and not field.read_only
    }


def _with_uploads(schema: ToolSchema, files: dict[str, Any], method: str) -> ToolSchema:
    input_schema = dict(schema.input_schema)
    properties = dict(input_schema.get("properties", {}))
    required = list(input_schema.get("required", ()))
    body_fields = dict(schema.body_fields)
    added: list[str] = []
    for name, field in files.items():
        if name in properties:
            continue  # declared otherwise by the host (an extension, a body)
        properties[name] = _file_property(field)
        body_fields[name] = name
        companion = name + NAME_SUFFIX
        if companion not in properties:
            properties[companion] = {
                "type": "string",
                "minLength": 1,
                "maxLength": 255,
                "description": f"The name of the file sent in {name}.",
            }
            added.append(companion)
        if field.required and method != "PATCH":
            required.append(name)
    input_schema["properties"] = properties
    if required:
        input_schema["required"] = list(dict.fromkeys(required))
    description = "\n\n".join(filter(None, (schema.description, _UPLOAD_NOTICE)))
    return dataclasses.replace(
        schema,
        input_schema=input_schema,
        body_fields=body_fields,
        protocol_arguments=(*schema.protocol_arguments, *added),
        description=description,
    )


def _file_property(field: Any) -> JSONObject:
    prop: JSONObject = {"type": "string", "contentEncoding": "base64"}
    if isinstance(field, serializers.ImageField):
        prop["contentMediaType"] = "image/*"
    help_text = getattr(field, "help_text", None)
    text = f"{help_text} " if help_text else ""
    text += "The file's bytes, base64-encoded (RFC 4648)."
    if field.allow_null:
        prop["type"] = ["string", "null"]
    elif not field.required:  # retrieve shows null for no file
        prop["type"] = ["string", "null"]
        text += " null: no file, as the record shows it."
    prop["description"] = text
    return prop
