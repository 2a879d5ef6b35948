"""Host prompts: ``@prompt`` functions in each app's ``mcp_prompts.py`` (ADR 0044).

The app's ``ready()`` imports every installed app's ``mcp_prompts`` module,
as the admin does ``admin.py``; each decorated function becomes a prompt,
its keyword-only parameters its arguments. ``prompts/list`` shows a caller
the prompts their permission classes let in, ``prompts/get`` converts the
string arguments, runs the function inside :func:`host_call` and checks
its messages (:mod:`~frisian_mcp.prompt_messages`). No prompt, no capability.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

from django.contrib.auth.models import AnonymousUser
from django.core import checks
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from frisian_mcp import methods, tokens
from frisian_mcp.conf import mcp_settings
from frisian_mcp.discovery import TOOL_NAME_PATTERN
from frisian_mcp.exceptions import (
    ConfigurationError,
    HostError,
    InvalidParams,
    ResourceNotFound,
    ToolError,
    few,
    host_call,
)
from frisian_mcp.prompt_arguments import Argument, Record, arguments_of
from frisian_mcp.prompt_context import PromptContext
from frisian_mcp.prompt_messages import RecordValue, assistant, checked, embed, user
from frisian_mcp.types import CallContext, ErrorCode, JSONObject
from frisian_mcp.validation import suggest, unknown_keys

if TYPE_CHECKING:
    from frisian_mcp.registry import ToolRegistry

__all__ = [
    "Argument",
    "Prompt",
    "PromptContext",
    "PromptView",
    "Record",
    "RecordValue",
    "argument_values",
    "assistant",
    "check_prompts",
    "declared",
    "embed",
    "prompt",
    "record_argument",
    "user",
]

#: Values a completion answers at most (2025-11-25 completion "Completion
#: Results": "Maximum 100 items per response").
COMPLETION_LIMIT = 100


@dataclass(frozen=True)
class Prompt:
    """One declared prompt: its function and what it takes."""

    name: str
    title: str | None
    description: str | None
    function: Callable[..., Any]
    arguments: tuple[Argument, ...]
    permission_classes: tuple[type[Any], ...] | None
    origin: str

    def listed(self, *, titled: bool) -> JSONObject:
        """The prompt as ``prompts/list`` shows it (titles from 2025-06-18)."""
        shown: JSONObject = {"name": self.name}
        if self.title and titled:
            shown["title"] = self.title
        if self.description:
            shown["description"] = self.description
        shown["arguments"] = [argument.listed() for argument in self.arguments]
        return shown


_CURSOR = "prompts_list_cursor"
#: Every prompt in the order declared (duplicates too: E018 names them).
_DECLARED: list[Prompt] = []
_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def prompt(function: _F, /) -> _F: ...
@overload
def prompt(
    *,
    name: str | None = None,
    title: str | None = None,
    permission_classes: Sequence[type[Any]] | None = None,
    complete: Mapping[str, Callable[..., Iterable[object]]] | None = None,
) -> Callable[[_F], _F]: ...
def prompt(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    title: str | None = None,
    permission_classes: Sequence[type[Any]] | None = None,
    complete: Mapping[str, Callable[..., Iterable[object]]] | None = None,
) -> Any:
    """Declare ``function(context, *, ...)`` a prompt (``@prompt`` or ``@prompt(...)``).

    ``name`` defaults to the function's (``^[A-Za-z0-9_-]{1,64}$``), the
    description is its docstring's first paragraph; ``permission_classes``
    default to DRF's ``DEFAULT_PERMISSION_CLASSES``; ``complete`` maps an
    argument to ``callable(context, value)`` giving completion values.

    Raises:
        ConfigurationError: the name breaks the rule, a parameter is not
            keyword-only or has a type a prompt argument cannot take.
    """

    def declare(function: Callable[..., Any]) -> Callable[..., Any]:
        declared_name = function.__name__ if name is None else name
        if not TOOL_NAME_PATTERN.match(declared_name):
            raise ConfigurationError(
                f"Prompt {declared_name!r} ({_origin(function)}): a prompt name "
                "matches ^[A-Za-z0-9_-]{1,64}$; pass name= to choose one."
            )
        _DECLARED.append(
            Prompt(
                declared_name,
                title,
                _first_paragraph(function.__doc__),
                function,
                arguments_of(
                    declared_name, _origin(function), function, dict(complete or {})
                ),
                None if permission_classes is None else tuple(permission_classes),
                _origin(function),
            )
        )
        return function

    return declare if function is None else declare(function)


def _origin(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def _first_paragraph(doc: str | None) -> str | None:
    if not doc:
        return None
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split()) or None


def declared() -> dict[str, Prompt]:
    """Every declared prompt by name (of two of one name, the first)."""
    named: dict[str, Prompt] = {}
    for found in _DECLARED:
        named.setdefault(found.name, found)
    return named


@checks.register()
def check_prompts(
    app_configs: Iterable[Any] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """E018: a name two prompts are declared under (docs/checks.md)."""
    seen: dict[str, list[str]] = {}
    for found in _DECLARED:
        seen.setdefault(found.name, []).append(found.origin)
    return [
        checks.Error(
            f"Prompts {', '.join(where)} are all named {name!r}: "
            "prompts/get could answer only one of them.",
            hint="Give each its own name with @prompt(name=...) (docs/prompts.md).",
            id="frisian_mcp.E018",
        )
        for name, where in seen.items()
        if len(where) > 1
    ]


# -- who sees which prompt ----------------------------------------------------


class PromptView(APIView):
    """The view a prompt's permission classes are asked ``has_permission`` on."""

    #: The prompt asked about, for permission classes that read it.
    prompt: Prompt | None = None


def _permitted(
    found: Prompt, context: CallContext, keys: frozenset[str] | None = None
) -> bool:
    """Whether the caller sees ``found``: its permission classes let them
    in (ADR 0006's probe: a class that raises anything but a refusal cannot
    decide), and each ``Record`` argument's template is listed to them
    (``keys``: those listed, if known)."""
    records = {a.record for a in found.arguments if a.record}
    if records and not records <= (_record_keys(context) if keys is None else keys):
        return False
    from frisian_mcp.invocation import _REFUSALS  # not loaded by django.setup()

    request: Any = Request(context.request)  # the caller, not authenticated again
    request._user = context.user or AnonymousUser()
    request._auth, request._authenticator = context.auth, context.authenticator
    view = PromptView()
    view.prompt, view.request, view.args, view.kwargs = found, request, (), {}
    classes: Iterable[Any] = found.permission_classes or ()
    if found.permission_classes is None:
        classes = api_settings.DEFAULT_PERMISSION_CLASSES
    try:
        return all(
            host_call(lambda c=c: c().has_permission(request, view)) for c in classes
        )
    except HostError as exc:
        return not isinstance(exc.error, _REFUSALS)


def _record_keys(context: CallContext) -> frozenset[str]:
    """The resource keys of one-variable templates listed to the caller."""
    from frisian_mcp import resources  # builds the registry: not at start-up

    listed = resources.templates(context)
    return frozenset(t.key for t in listed if len(t.variables) == 1)


def visible(context: CallContext) -> list[Prompt]:
    """The prompts listed to the caller, in name order."""
    named = declared()
    keys = None
    if any(a.record for p in named.values() for a in p.arguments):
        keys = _record_keys(context)
    shown = (named[name] for name in sorted(named))
    return [p for p in shown if _permitted(p, context, keys)]


def _seen(context: CallContext, name: object) -> Prompt:
    """The prompt ``name`` if the caller sees it; hidden and unknown alike fail."""
    found = declared().get(name) if isinstance(name, str) else None
    if found is not None and _permitted(found, context):
        return found
    names = [p.name for p in visible(context)]
    close = list(suggest([name], names).values()) if isinstance(name, str) else []
    message = "Unknown prompt."
    if close:
        message += f" Did you mean: {', '.join(close)}?"
    _raise(
        message + " Call prompts/list for the available prompts.",
        ErrorCode.UNKNOWN_PROMPT,
        suggestions=close,
    )


def _raise(message: str, code: ErrorCode, **data: Any) -> NoReturn:
    raise InvalidParams(f"Invalid params: {message}", data={"code": code.value, **data})


# -- the methods ---------------------------------------------------------------


@methods.capability("prompts")
def capability(registry: Callable[[], ToolRegistry]) -> JSONObject | None:
    """``prompts: {}`` once a prompt is declared; else not served (-32601)."""
    return {} if _DECLARED else None


@methods.method("prompts/list", "prompts")
def prompts_list(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    """One page of the caller's prompts, in name order (a signed cursor)."""
    cursor = params.get("cursor")
    offset = 0 if cursor is None else tokens.read_cursor(_CURSOR, cursor)
    size = max(1, mcp_settings.TOOLS_LIST_PAGE_SIZE)
    shown = visible(call.context)
    titled = call.revision.structured
    result: JSONObject = {
        "prompts": [p.listed(titled=titled) for p in shown[offset : offset + size]]
    }
    if offset + size < len(shown):
        result["nextCursor"] = tokens.cursor(_CURSOR, offset + size)
    return call.cacheable(result)


@methods.method("prompts/get", "prompts")
def prompts_get(call: methods.MethodCall, params: JSONObject) -> JSONObject:
    """The prompt's messages for these arguments, built as the caller."""
    name = params.get("name")
    if not isinstance(name, str) or not name:
        _raise(
            "prompts/get needs a prompt name in params.name.", ErrorCode.UNKNOWN_PROMPT
        )
    found = _seen(call.context, name)
    context = PromptContext(call.context, call.registry)
    values = _converted(found, params.get("arguments"))
    for argument in found.arguments:
        if argument.record and argument.name in values:
            try:
                values[argument.name] = context.record(
                    argument.record, values[argument.name]
                )
            except ResourceNotFound:
                _raise(
                    f"argument `{argument.name}` names no record you can see.",
                    ErrorCode.INVALID_ARGUMENT,
                    argument=argument.name,
                )
    try:
        returned = host_call(found.function, context, **values)
    except ToolError as exc:  # a tool the prompt called as the caller refused
        data = {k: v for k, v in exc.payload().items() if k != "message"}
        raise InvalidParams(exc.message, data=data) from exc
    result: JSONObject = {"messages": checked(found.name, returned)}
    if found.description:
        result["description"] = found.description
    return result


def _converted(found: Prompt, given: object) -> dict[str, Any]:
    """The function's keyword arguments from ``prompts/get``'s strings."""
    given = {} if given is None else given
    if not isinstance(given, dict):
        _raise("arguments must be an object of strings.", ErrorCode.INVALID_ARGUMENT)
    known = {argument.name: argument for argument in found.arguments}
    unknown = [key for key in given if key not in known]
    if unknown:
        _raise(
            f"the arguments object {unknown_keys(unknown, known)}.",
            ErrorCode.UNKNOWN_ARGUMENT,
        )
    missing = [a.name for a in found.arguments if a.required and a.name not in given]
    if missing:
        _raise(
            f"missing required argument: {few(missing)}.",
            ErrorCode.INVALID_ARGUMENT,
            arguments=missing,
        )
    values = {}
    for key, value in given.items():
        argument = known[key]
        try:
            if not isinstance(value, str):
                raise TypeError("not a string")  # MCP's arguments are strings
            values[key] = argument.convert(value)
        except (ValueError, KeyError, TypeError):
            _raise(
                f"argument `{key}` must be {argument.form} (given as a string).",
                ErrorCode.INVALID_ARGUMENT,
                argument=key,
            )
    return values


# -- for completion (completion/complete, ADR 0044) -----------------------------


def argument_values(
    context: CallContext, prompt_name: str, argument_name: str, value: str
) -> list[str] | None:
    """Completion values of a prompt argument, or ``None`` if unknown or hidden.

    A choice argument: its choices starting with ``value`` (case aside); an
    argument with ``complete=``: what the callable gives, run inside
    :func:`host_call` and cut to 100; any other (a ``Record`` argument
    completes as its template's variable, :func:`record_argument`): ``[]``.
    """
    found = declared().get(prompt_name)
    if found is None or not _permitted(found, context):
        return None
    argument = next((a for a in found.arguments if a.name == argument_name), None)
    if argument is None:
        return None
    if argument.choices:
        start = value.casefold()
        matching = (c for c in argument.choices if c.casefold().startswith(start))
        return list(itertools.islice(matching, COMPLETION_LIMIT))
    complete = argument.complete
    if complete is None:
        return []
    helper = PromptContext(context)
    return host_call(
        lambda: [
            str(v) for v in itertools.islice(complete(helper, value), COMPLETION_LIMIT)
        ]
    )


def record_argument(prompt_name: str, argument_name: str) -> str | None:
    """The resource key of a ``Record`` argument, else ``None``."""
    found = declared().get(prompt_name)
    arguments = found.arguments if found is not None else ()
    return next((a.record for a in arguments if a.name == argument_name), None)
