"""Foreign-key references: lookup objects resolved to what the field accepts.

A managed relation's lookup object (``{"site": {"name": "hq-1"}}``) is
resolved on unique keys through the field's own ``get_queryset()`` and
replaced by the id, slug or URL the field wants (docs/security.md).
"""

from __future__ import annotations

import pydoc
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Model

from frisian_mcp.exceptions import LIST_LIMIT, FrisianMCPError, ToolInputError
from frisian_mcp.jsonschema import plain
from frisian_mcp.relations import Relation
from frisian_mcp.types import Call, ErrorCode, FieldError

if TYPE_CHECKING:
    from frisian_mcp.schema import ToolSchema

__all__ = ["field_root", "resolve", "restate", "settle_echoes"]

_NUMERIC = re.compile(r"-?[0-9]+")


def resolve(
    tool: str,
    schema: ToolSchema,
    items: list[dict[str, Any]],
    view: Any,
    *,
    indexed: bool = False,
) -> None:
    """Replace lookup objects in ``items`` (in place) by the ids they name.

    A hyperlinked field's ids become its URLs the same way. The fields come
    from the view's own ``get_serializer()`` (or, for a body declared apart
    from it, the declaring serializer class with the view's context), asked
    only when there is something to resolve. Raises :class:`ToolInputError`
    (``invalid_reference``) listing every reference that matched zero or
    several rows; ``indexed`` adds the item index (bulk bodies).
    """
    fields: dict[Any, Any] = {}
    problems: list[FieldError] = []
    for index, item in enumerate(items):
        for name, relation in schema.relations.items():
            value: Any = item.get(name)
            many = relation.many and isinstance(value, list)
            members = list(value) if many else [value]
            if not any(_lookup_of(relation, m) for m in members):
                continue
            field = _field(view, relation, fields)
            if field is None:
                continue
            child = getattr(field, "child_relation", field)
            for position, member in enumerate(members):
                lookup = _lookup_of(relation, member)
                if lookup is None:
                    continue
                try:
                    members[position] = _resolve(relation, child, lookup)
                except _LookupProblem as exc:
                    label = f"{name}[{position}]" if many else name
                    where = index if indexed else None
                    problems.append(_problem(where, label, str(exc), relation))
            item[name] = members if many else members[0]
    if problems:
        raise _reference_error(tool, problems)


def settle_echoes(tool: str, schema: ToolSchema, view: Any, call: Call) -> None:
    """The fields of a record sent back to an update, as the row shows them.

    Read-only ones are dropped while they hold the row's values (REST ignores
    them) and refused when changed, which the update would drop silently. A
    related object exactly as the row shows it (a nested record) becomes the
    related row's key, which the field takes.
    """
    body = call.body if isinstance(call.body, dict) else {}
    nested = [name for name in schema.relations if _objects(body.get(name))]
    if not (call.echoed or nested):
        return
    if not callable(getattr(view, "get_object", None)):  # no row to compare
        if call.echoed:
            raise _read_only(tool, sorted(call.echoed))
        return
    instance = view.get_object()
    serializer = view.get_serializer(instance)
    shown = plain(serializer.data)
    changed = sorted(k for k, v in call.echoed.items() if shown.get(k) != v)
    if changed:
        raise _read_only(tool, changed, schema.file_fields)
    for name in nested:
        if body[name] == shown.get(name) and name in serializer.fields:
            related = serializer.fields[name].get_attribute(instance)
            if schema.relations[name].many:
                rows = related.all() if hasattr(related, "all") else related
                body[name] = [row.pk for row in rows]
            else:
                body[name] = related.pk


def _read_only(
    tool: str, names: list[str], files: tuple[str, ...] = ()
) -> ToolInputError:
    problems: list[FieldError] = [
        {"field": name, "code": "read_only", "message": _READ_ONLY} for name in names
    ]
    why = "The API cannot change them."
    if set(names) & set(files):  # the API could, given a file
        why = (
            "Files are not carried through tools on this server: send the file "
            "over the REST API, or ask the server's operator to install the "
            "files extra (docs/files.md)."
        )
    return ToolInputError(
        f"{tool}: read-only fields differ from what the row shows: "
        f"{', '.join(names)}. {why}",
        code=ErrorCode.INVALID_ARGUMENT,
        tool=tool,
        fields=problems,
        hint="Leave read-only fields out, or send them as retrieve returns them.",
    )


def _objects(value: Any) -> bool:
    """Whether ``value`` is an object, or a list holding one."""
    items = value if isinstance(value, list) else [value]
    return any(isinstance(item, Mapping) for item in items)


_READ_ONLY = "is read-only and differs from what the row shows"


def _field(view: Any, relation: Relation, found: dict[Any, Any]) -> Any:
    """The bound serializer field behind ``relation``, if there is one."""
    path = relation.owner
    if path not in found:
        serializer, owner = view.get_serializer(), pydoc.locate(path or "")
        if isinstance(owner, type) and not isinstance(serializer, owner):
            serializer = owner(context=view.get_serializer_context())
        found[path] = serializer.fields
    return found[path].get(relation.name)


def _lookup_of(relation: Relation, value: Any) -> Mapping[str, Any] | None:
    """The lookup ``value`` stands for, if it needs resolving here.

    A lookup object of a managed relation; for a hyperlinked one also an id
    (a number, or a string that is no link), looked up by primary key.
    """
    if not relation.managed:
        return None
    if isinstance(value, Mapping):
        return value
    model = relation.model
    if relation.kind != "url" or model is None or model._meta.pk is None:
        return None
    if isinstance(value, str):
        numeric = _NUMERIC.fullmatch(value) is not None
        is_id = numeric if relation.numeric_ids else bool(value) and "/" not in value
    else:
        is_id = isinstance(value, int) and not isinstance(value, bool)
    return {model._meta.pk.name: value} if is_id else None


def _reference_error(tool: str, problems: list[FieldError]) -> ToolInputError:
    """The ``invalid_reference`` error for ``problems``."""
    first = problems[0]
    where = f"item {first['index']}, " if "index" in first else ""
    message = f"{tool}: {where}{first['field']} {first['message']}"
    if len(problems) > 1:
        message += f" (and {len(problems) - 1} more reference problem{'s' if len(problems) > 2 else ''})"
    return ToolInputError(
        message,
        code=ErrorCode.INVALID_REFERENCE,
        tool=tool,
        field=first["field"],
        fields=problems,
        hint="Refer to related objects by id, or by an object holding one of the listed lookup keys.",
    )


def restate(schema: ToolSchema, problems: list[FieldError]) -> list[FieldError]:
    """Schema problems of related arguments, restated as reference problems.

    A lookup on a non-unique field or of the wrong shape fails the schema;
    the agent needs the lookup keys that exist, not "matches no form".
    """
    result: dict[tuple[str, str], FieldError] = {}
    for problem in problems:
        root = field_root(problem["field"])
        relation = schema.relations.get(root)
        if relation is not None and problem["code"] != "required":
            lookups = relation.describe_lookups()
            field = (
                root if problem["field"].startswith(root + ".") else problem["field"]
            )
            message = f"must be {relation.plain_form}" + (
                f" or an object with one of these lookup keys: {lookups}"
                if lookups
                else ""
            )
            problem = _problem(None, field, message, relation)
        result.setdefault((problem["field"], problem["code"]), problem)
    return list(result.values())


def field_root(path: str) -> str:
    """The top-level argument of a field path such as ``tags[0].name``."""
    return path.replace("[", ".").split(".", 1)[0]


class _LookupProblem(FrisianMCPError):
    """Why a lookup object names no single row (a message without values)."""


def _resolve(relation: Relation, field: Any, lookup: Mapping[str, Any]) -> Any:
    """The value ``field`` accepts for the row ``lookup`` names.

    Raises :class:`_LookupProblem` when it names none, or several.
    """
    allowed = relation.describe_lookups()
    keys = set(lookup)
    unknown = sorted(k for k in keys if k not in relation.lookup_fields)
    if unknown or not keys:
        raise _LookupProblem(
            f"can only be looked up by {allowed} (unique fields of the {_noun(relation)})"
        )
    if not any(set(key) <= keys for key in relation.lookup_sets):
        raise _LookupProblem(f"needs a complete lookup key: one of {allowed}")
    try:
        queryset = field.get_queryset()
    except Exception:  # the host's field has no usable queryset
        raise _LookupProblem("cannot be looked up here; send its id") from None
    if queryset is None:
        raise _LookupProblem("cannot be looked up here; send its id")
    if any(isinstance(v, str) and "\x00" in v for v in lookup.values()):
        # PostgreSQL refuses NUL in text parameters (a DataError, not a miss).
        raise _LookupProblem(
            "matches nothing: lookup values cannot contain NUL characters"
        )
    try:
        matches = list(queryset.filter(**dict(lookup))[:2])
    except (ValueError, TypeError, DjangoValidationError):
        raise _LookupProblem(
            f"has lookup values of the wrong type for {', '.join(sorted(keys))}"
        ) from None
    used = " + ".join(sorted(keys))
    if not matches:
        raise _LookupProblem(
            f"matches no {_noun(relation)} you can see (looked up by {used})"
        )
    if len(matches) > 1:
        raise _LookupProblem(
            f"matches several {_noun(relation, plural=True)} (looked up by {used}); use one of: {allowed}"
        )
    return _representation(relation, field, matches[0])


def _representation(relation: Relation, field: Any, obj: Model) -> Any:
    """What ``field`` accepts for ``obj``: its pk, slug or URL."""
    if relation.kind == "pk":
        pk_field = getattr(field, "pk_field", None)
        value = pk_field.to_representation(obj.pk) if pk_field else obj.pk
    else:
        value = field.to_representation(obj)
    return str(value) if not isinstance(value, int | str) else value


def _problem(
    index: int | None, field: str, message: str, relation: Relation
) -> FieldError:
    problem: FieldError = {
        "field": field,
        "code": "invalid_reference",
        "message": message,
        "lookup_fields": list(relation.lookup_fields)[:LIST_LIMIT],
    }
    if index is not None:
        problem["index"] = index
    return problem


def _noun(relation: Relation, *, plural: bool = False) -> str:
    if relation.model is None:
        return "objects" if plural else "object"
    meta = relation.model._meta
    return str(meta.verbose_name_plural if plural else meta.verbose_name)
