"""Each result shape's writer answers what its own schema says (ADR 0042).

``frisian_mcp.results`` keeps every shape's schema beside the one function
that writes it; here each writer's output, in each of its forms, is checked
against its own schema, and against the ``outputSchema`` a tool answering
that shape lists. ``tests/test_result_shapes.py`` checks the same through
the official SDK, tool by tool, over the wire.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from jsonschema import Draft202012Validator

from frisian_mcp import results
from frisian_mcp.arguments import unsign
from frisian_mcp.types import Call, JSONObject, ListState
from tests.testapp.models import Publisher

RECORD: JSONObject = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}
ROWS = [{"id": i, "name": f"p{i}"} for i in range(1, 4)]
PUBLISHER = Publisher(pk=7, name="Acme", country="NL")


def _valid(schema: JSONObject, answer: Any) -> None:
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(answer)


def _validations() -> list[JSONObject]:
    notes = {"confirmation": {"required": True, "summary": {"message": "m"}}}
    changed = {"validated": {"name": "Beta", "country": "NL"}, "instance": PUBLISHER}
    return [
        results.validation({"validated": {"name": "A"}, "instance": None}, None, {}),
        results.validation(changed, None, {}),
        results.validation({"validated": None, "instance": PUBLISHER}, None, notes),
        results.validation(None, 3, {"ids": [1, 2, 3]}),
    ]


@override_settings(FRISIAN_MCP={"PAGE_SIZE": 2})
@pytest.mark.parametrize(
    ("schema", "answers"),
    [
        pytest.param(results.DELETED, lambda: [results.deleted()], id="deleted"),
        pytest.param(results.HELP, lambda: [results.helped({"tool": "t"})], id="help"),
        pytest.param(results.VALIDATION, _validations, id="validation"),
        pytest.param(
            results.page_shape(RECORD),
            lambda: [
                results.page(ROWS[:2], 3, ListState(page=1, page_size=2)),
                results.page(ROWS[2:], 3, ListState(page=2, page_size=2)),
                results.page([], 3, ListState(page=9, page_size=2)),
            ],
            id="page",
        ),
        pytest.param(
            results.bulk_shape(RECORD),
            lambda: [results.bulk(ROWS[:1], "id"), results.bulk(ROWS, "id")],
            id="bulk",
        ),
        pytest.param(RECORD, lambda: [results.record(ROWS[0])], id="record"),
    ],
)
def test_each_writer_answers_its_own_schema(schema: JSONObject, answers: Any) -> None:
    for answer in answers():
        _valid(schema, answer)


@override_settings(FRISIAN_MCP={"PAGE_SIZE": 2})
def test_a_bulk_create_of_more_than_a_page_answers_ids() -> None:
    assert results.bulk(ROWS, "id") == {"created": 3, "ids": [1, 2, 3]}
    assert results.bulk(ROWS[:2], "id") == {"created": 2, "results": ROWS[:2]}


def test_a_finished_page_fits_the_lists_output_schema() -> None:
    """A page with its next_token, projected, with what went unchecked."""
    listing = ListState(page=1, page_size=2, filter_keys=["name"])
    call = Call(listing=listing, paged=True, unchecked=["extra"])
    page = results.page([dict(row) for row in ROWS[:2]], 3, listing)
    finished = results.finish("things__list", call, page, "user:1")
    schema = results.output_schema(
        (results.page_shape(RECORD),), ("help", "page"), unchecked=True
    )
    assert schema is not None
    _valid(schema, finished)
    assert finished["results"] == [{"name": "p1"}, {"name": "p2"}]
    token = unsign("continuation_token", finished["next_token"])
    assert (token["t"], token["u"], token["p"], token["s"]) == (
        "things__list",
        "user:1",
        2,
        2,
    )
    assert finished["unchecked"] == ["extra"]


def test_every_shape_a_write_tool_answers_fits_its_output_schema() -> None:
    """A create's record, bulk answer, validation report and help."""
    shapes = (RECORD, results.bulk_shape(RECORD))
    schema = results.output_schema(shapes, ("help", "mode"))
    assert schema is not None
    answers = [results.record(ROWS[0]), results.bulk(ROWS, "id")]
    answers += [*_validations(), results.helped({"tool": "t"})]
    for answer in answers:
        _valid(schema, answer)
    deleted = results.output_schema((results.DELETED,), ("help", "mode"))
    assert deleted is not None
    _valid(deleted, results.deleted())


def test_an_answer_that_is_no_object_is_one() -> None:
    assert results.record(None) == {}
    assert results.record([1, 2]) == {"result": [1, 2]}
    assert results.record("text") == {"result": "text"}
