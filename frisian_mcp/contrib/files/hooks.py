"""The file hook: file arguments in, files out (docs/files.md, ADR 0027)."""

from __future__ import annotations

from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponseBase

from frisian_mcp.conf import extra_settings as mcp_settings
from frisian_mcp.contrib.files import responses, schemas, uploads
from frisian_mcp.hooks import BaseCallHook, ContentResult, form_only
from frisian_mcp.schema import ToolSchema
from frisian_mcp.tools import Tool
from frisian_mcp.types import Call, CallContext

__all__ = ["FileHook"]


class FileHook(BaseCallHook):
    """Sends file fields as base64 arguments and answers files as resources."""

    settings = ("FILE_MAX_BYTES",)
    sends_forms = True

    def get_request_bytes(self) -> int:
        """What a call carrying a file of ``FILE_MAX_BYTES`` needs."""
        return uploads.request_bytes(mcp_settings.FILE_MAX_BYTES)

    def map_schema(self, tool: Tool, schema: ToolSchema) -> ToolSchema:
        """File fields as base64 arguments; a file-answering tool says so."""
        return schemas.file_schema(tool, schema)

    def map_request(self, tool: Tool, call: Call, request: WSGIRequest) -> None:
        """Decode file arguments; give a form-only view a form body."""
        schema = tool.schema
        if schema is None:
            return
        files = schemas.upload_fields(tool, schema)
        if files and call.bulk and isinstance(call.body, list):
            # Each item names its own files, in the list as sent.
            sent = next((v for v in call.arguments.values() if isinstance(v, list)), [])
            for index, item in enumerate(call.body):
                names = sent[index] if index < len(sent) else {}
                if isinstance(item, dict) and isinstance(names, dict):
                    model = tool.model
                    uploads.decode_files(tool.name, files, item, names, model, index)
            return
        if not isinstance(call.body, dict):
            return
        if files:
            uploads.decode_files(
                tool.name, files, call.body, call.arguments, tool.model
            )
        view_class = tool.endpoint.view_class
        if form_only(view_class) and not call.validate_only:
            uploads.send_as_form(view_class, request, call.body)

    def check_call(
        self, tool: Tool, call: Call, view: Any, context: CallContext
    ) -> None:
        """An update's file sent back as its URL keeps the stored file."""
        schema = tool.schema
        if schema is not None and isinstance(call.body, dict):
            files = schemas.upload_fields(tool, schema)
            uploads.keep_echoes(tool.name, files, call.body, view)

    def map_response(
        self, tool: Tool, call: Call, request: WSGIRequest, response: HttpResponseBase
    ) -> ContentResult | None:
        """The file as an embedded resource, within ``FILE_MAX_BYTES``."""
        url = request.build_absolute_uri()
        return responses.file_content(tool.name, url, response)
