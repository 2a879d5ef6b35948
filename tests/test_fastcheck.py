"""The fast check never accepts what jsonschema refuses, and is used.

``frisian_mcp.fastcheck`` answers "certainly valid" for flat argument
schemas before jsonschema runs. A wrong ``True`` would let a bad argument
through the value-free validation, so it is held to jsonschema on every
tool schema of the test URLconfs, with generated arguments.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import pytest
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from frisian_mcp.examples import example_arguments
from frisian_mcp.fastcheck import fast_check
from frisian_mcp.registry import get_registry, reset_registry

pytestmark = pytest.mark.django_db

#: URLconfs whose tools cover the schema shapes: the demo, the test app's
#: relations, the zoo's real-world patterns.
URLCONFS = ("demo_project.urls", "tests.urls", "tests.urls_zoo")

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "1", "-7", "1.5", "a@example.com", "nope", "active"])
    # Past the usual length limits, and bounds of numbers.
    | st.sampled_from(["x" * n for n in (31, 51, 65, 101, 129, 151, 201, 256, 301)])
    | st.sampled_from([-1, 0, 1.0, 0.5, 2**15, 2**31, 2**63, -(2**63) - 1, 1e20])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@functools.cache
def schemas(urlconf: str) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool name, validator schema, fast check) of every tool of ``urlconf``."""
    with override_settings(ROOT_URLCONF=urlconf):
        reset_registry()
        found = []
        for tool in get_registry():
            schema = tool.schema
            if schema is not None:
                validated = cast(dict[str, Any], schema.validator.schema)
                found.append((tool.name, validated, schema.fast_check))
        reset_registry()
    return found


@st.composite
def near_valid(draw: st.DrawFn, urlconf: str) -> tuple[str, Any, Any]:
    """A tool's valid example call with one argument changed, added or dropped."""
    name, schema, fast = draw(st.sampled_from(schemas(urlconf)))
    arguments = dict(example_arguments(schema))
    key = draw(st.sampled_from([*schema.get("properties", {}), "data", "unknown"]))
    if draw(st.booleans()) and key in arguments:
        del arguments[key]
    else:
        arguments[key] = draw(JSON)
    return name, fast, arguments


@pytest.mark.parametrize("urlconf", URLCONFS)
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(data=st.data())
def test_fast_check_accepts_nothing_jsonschema_refuses(
    urlconf: str, data: st.DataObject
) -> None:
    name, fast, arguments = data.draw(near_valid(urlconf))
    if fast is not None and fast(arguments):
        schema = next(s for n, s, _ in schemas(urlconf) if n == name)
        assert Draft202012Validator(schema).is_valid(arguments), (name, arguments)


def boundary_values(schema: dict[str, Any]) -> list[Any]:
    """Values just outside what ``schema`` (one argument's) allows, and others."""
    values: list[Any] = [None, True, False, 0, -1, 1.5, "", "1", [], {}, ["x"]]
    values += [{"unknown": 1}, {"id": "x"}, {"id": True}, {"name": 5}]
    for key, step in (("maxLength", 1), ("minLength", -1)):
        if key in schema and schema[key] + step >= 0:
            values.append("x" * (schema[key] + step))
    for key, step in (("maximum", 1), ("minimum", -1)):
        if key in schema:
            values += [schema[key] + step, schema[key] + step * 0.5]
    if "pattern" in schema:
        values += ["not matching!?", "12a", "-"]
    if "enum" in schema:
        values += ["not-a-choice", *[str(v).upper() for v in schema["enum"]]]
    for branch in schema.get("anyOf", ()):
        values += boundary_values(branch)
    return values


@pytest.mark.parametrize("urlconf", URLCONFS)
def test_fast_check_refuses_every_boundary_jsonschema_refuses(urlconf: str) -> None:
    """Each argument of each tool's example, set just past its limits."""
    accepted = refused = 0
    for name, schema, fast in schemas(urlconf):
        assert fast is not None, name
        validator = Draft202012Validator(schema)
        example = dict(example_arguments(schema))
        instances = [{k: v for k, v in example.items() if k != key} for key in example]
        for key, sub in schema.get("properties", {}).items():
            instances += [{**example, key: v} for v in boundary_values(sub)]
        for instance in instances:
            if fast(instance):
                accepted += 1
                assert validator.is_valid(instance), (name, instance)
            else:
                refused += 1
    # Both answers were put to the test.
    assert accepted
    assert refused


@pytest.mark.parametrize("urlconf", URLCONFS)
def test_valid_example_calls_take_the_fast_path(urlconf: str) -> None:
    """Every example call is valid, and most tools answer it without jsonschema."""
    fast_ones = 0
    found = schemas(urlconf)
    for name, schema, fast in found:
        example = example_arguments(schema)
        assert Draft202012Validator(schema).is_valid(example), name
        if fast is not None:
            assert fast(example), (name, example)
            fast_ones += 1
    assert fast_ones >= len(found) * 0.8, (fast_ones, len(found))


def test_what_the_fast_check_does_not_know_is_left_to_jsonschema() -> None:
    """Unknown keywords, and patterns Python cannot compile, get no fast check."""
    assert fast_check({"type": "string", "pattern": "(?<name"}) is None
    assert fast_check({"oneOf": [{"type": "string"}]}) is None
    assert fast_check({"$ref": "#/$defs/x"}) is None
    assert fast_check({"items": [{"type": "string"}]}) is None
    checks = fast_check({"type": "integer", "maximum": 3})
    assert checks is not None
    # Bools and integral floats: jsonschema decides, the fast check says no.
    assert [checks(v) for v in (True, 1.0, 2, 4)] == [False, False, True, False]
