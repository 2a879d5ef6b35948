"""Prompt arguments: typed keyword-only parameters, read from MCP's strings.

A prompt function's keyword-only parameters are its arguments (ADR 0044):
``str``, ``int``, ``bool``, and choices (``Literal``, an enum, Django's
``Choices``), optionally ``Annotated[T, "description"]``; a default makes
one optional. MCP lists no types (2025-11-25 server/prompts
``PromptArgument``): each value arrives as a string and is converted here.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import re
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from frisian_mcp.exceptions import ConfigurationError, few

__all__ = ["Argument", "Record", "arguments_of"]

_INTEGER = re.compile(r"^[+-]?[0-9]{1,30}$")
_BOOLEANS = {"true": True, "false": False}


@dataclass(frozen=True)
class Record:
    """``contact: Annotated[RecordValue, Record("contacts")]`` (or, where no
    type checker reads the module, ``contact: Record("contacts")``): an
    argument naming one record.

    ``key`` is a resource key (ADR 0043) whose template has one variable;
    the argument's value is that variable, and the function receives the
    record as the caller reads it (``resources/read``), ready to embed.
    """

    key: str
    description: str | None = None


@dataclass(frozen=True)
class Argument:
    """One prompt argument: how it is listed and how its string is read.

    ``form`` says what the string must be (errors name it, never the
    value); ``convert`` raises ``ValueError`` or ``KeyError`` on any other.
    """

    name: str
    description: str | None
    required: bool
    form: str
    convert: Callable[[str], Any]
    choices: tuple[str, ...] = ()
    complete: Callable[..., Iterable[object]] | None = None
    #: The resource key of a ``Record`` argument.
    record: str | None = None

    def listed(self) -> dict[str, Any]:
        """The argument as ``prompts/list`` shows it (``PromptArgument``).

        MCP lists no types: a choice argument's description names its
        choices, so a client can show them.
        """
        shown: dict[str, Any] = {"name": self.name}
        description = self.description
        if self.choices:
            named = f"One of: {few(self.choices)}."
            description = f"{description} {named}" if description else named
        if description:
            shown["description"] = description
        shown["required"] = self.required
        return shown


def arguments_of(
    name: str,
    origin: str,
    function: Callable[..., Any],
    complete: dict[str, Callable[..., Iterable[object]]],
) -> tuple[Argument, ...]:
    hints = get_type_hints(function, include_extras=True)
    found = []
    for position, param in enumerate(inspect.signature(function).parameters.values()):
        if position == 0 and param.kind is not param.KEYWORD_ONLY:
            continue  # the context
        where = f"Prompt {name!r} ({origin}), parameter {param.name!r}"
        if param.kind is not param.KEYWORD_ONLY:
            raise ConfigurationError(
                f"{where}: a prompt takes its context, then keyword-only "
                "arguments (def f(context, *, ...))."
            )
        if param.name not in hints:
            raise ConfigurationError(f"{where}: annotate it (str, int, bool, ...).")
        required = param.default is param.empty
        found.append(_argument(where, param.name, hints[param.name], required))
    names = {argument.name for argument in found}
    for argument_name in set(complete) - names:
        raise ConfigurationError(
            f"Prompt {name!r} ({origin}): complete= names "
            f"{argument_name!r}, which is not one of its arguments."
        )
    return tuple(
        _with_completion(argument, complete.get(argument.name)) for argument in found
    )


def _with_completion(
    argument: Argument, complete: Callable[..., Iterable[object]] | None
) -> Argument:
    if complete is None:
        return argument
    return dataclasses.replace(argument, complete=complete)


def _argument(where: str, name: str, hint: Any, required: bool) -> Argument:
    """An argument of type ``hint``: str, int, bool, a choice, ``Annotated``."""
    description = None
    if get_origin(hint) is Annotated:
        hint, *extras = get_args(hint)
        description = next((e for e in extras if isinstance(e, str)), None)
        # Annotated[RecordValue, Record("contacts")]: the typed spelling.
        hint = next((e for e in extras if isinstance(e, Record)), hint)
    if get_origin(hint) in (Union, types.UnionType):
        kept = [arg for arg in get_args(hint) if arg is not type(None)]
        hint = kept[0] if len(kept) == 1 else hint
    if isinstance(hint, Record):
        about = hint.description or description
        form = f"the {hint.key} record's value"
        return Argument(name, about, required, form, str, record=hint.key)
    made = functools.partial(Argument, name, description, required)
    if hint is str:
        return made("a string", str)
    if hint is bool:
        return made("true or false", _boolean)
    if hint is int:
        return made("an integer", _integer)
    if get_origin(hint) is Literal:
        values = get_args(hint)
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        values = tuple(hint)  # Django's Choices are enums
    else:
        raise ConfigurationError(
            f"{where}: a prompt argument is a str, int, bool, Literal, enum, "
            "Django Choices (optionally Annotated[T, 'description']) or "
            "Record('<resource key>')."
        )
    strings = {str(getattr(v, "value", v)): v for v in values}
    return made(f"one of {few(strings)}", strings.__getitem__, tuple(strings))


def _boolean(value: str) -> bool:
    return _BOOLEANS[value.lower()]


def _integer(value: str) -> int:
    if not _INTEGER.match(value):
        raise ValueError("not an integer")
    return int(value)
