"""Fuzz the /mcp endpoint with hypothesis: envelopes, raw bodies, tool arguments.

Every body goes through the wire (Django's test ``Client`` POSTing bytes to
``/mcp``). Whatever is sent:

* the HTTP status is never 5xx, and never ``-32603``;
* the body is empty (202, notifications) or a valid JSON-RPC 2.0 response
  (exactly one of ``result``/``error``, integer code, string message, the
  request id or ``null``), with the status MCP-RULES.md gives it;
* a rejected call (JSON-RPC error or ``isError`` result) changes no row count
  of any demo model (Contact, Site, Device, Tag, Device.tags); an accepted
  one changes exactly what its tool says (create +1 or +len(objects),
  destroy -1, list and retrieve nothing);
* errors never echo a caller-supplied string value (every generated string
  carries a ``ZZQ`` marker, searched for in the error) and never carry a
  traceback, SQL, or settings, also with ``DEBUG=True``.

Each hypothesis example runs in a savepoint rolled back at its end, so every
example starts from the same seeded demo data inside pytest-django's test
transaction. The bugs the fuzzers found are pinned in ``tests/regressions/``,
replayed with ``tool_reply`` and the checks below.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import string
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.test import Client, override_settings
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from demo_project.contacts.models import Contact
from demo_project.dcim.models import Device, Site, Tag
from frisian_mcp.conf import mcp_settings
from frisian_mcp.contrib.testing import MCPTestClient, tool_error
from frisian_mcp.registry import get_registry
from frisian_mcp.revisions import SUPPORTED_VERSIONS

if TYPE_CHECKING:
    # The stubs' type of a test Client response (with .json()); it exists
    # for type checkers only.
    from django.test.client import _MonkeyPatchedWSGIResponse as TestResponse

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

#: Multiplies every example budget, for a longer hunt:
#: ``FRISIAN_FUZZ_SCALE=20 pytest tests/test_fuzz.py``.
SCALE = max(1, int(os.environ.get("FRISIAN_FUZZ_SCALE", "1")))
FUZZ = settings(
    max_examples=100 * SCALE,
    deadline=None,
    # The everyday run (the suite, CI) draws the same examples every time,
    # so it passes or fails for the code, not for the draw; a longer hunt
    # draws fresh ones.
    derandomize=SCALE == 1,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)
#: Per-tool argument fuzzing: 24 tools, so fewer examples each.
PER_TOOL = settings(FUZZ, max_examples=40 * SCALE)

ENDPOINT = "/mcp"
JSON = "application/json"
ACCEPT_BOTH = "application/json, text/event-stream"
#: HTTP status of each JSON-RPC error code that is not answered with 200.
ERROR_STATUS = {-32700: 400, -32600: 400, -32022: 400}
#: The same for a 2026-07-28 request: header mismatches are 400, unknown
#: methods 404, and -32602 is 400 when ``_meta`` lacks a required field.
MODERN_ERROR_STATUS = {**ERROR_STATUS, -32020: 400, -32601: 404}
MODERN_VERSIONS = ("2026-07-28",)
#: Strings an error must never contain: tracebacks, SQL, settings.
FORBIDDEN = (
    "Traceback",
    'File "',
    "SELECT ",
    "INSERT INTO",
    "UPDATE ",
    "DELETE FROM",
    "sqlite3.",
    "psycopg",
    "django.db",
    "SECRET_KEY",
    django_settings.SECRET_KEY,
)

# -- markers: every caller string we generate carries one -------------------

MARKER_RE = re.compile(r"ZZQ[A-Za-z0-9]{8}")
markers = st.text(string.ascii_letters + string.digits, min_size=8, max_size=8).map(
    lambda s: "ZZQ" + s
)
#: Strings a caller might send, each holding a marker.
marked_strings = st.one_of(
    markers,
    markers.map(lambda m: m + " \u00e9\u4e2d\u0645\U0001f600"),
    markers.map(lambda m: f"  {m}\t\n"),
    markers.map(lambda m: f"{m.lower()}@example.com"),
    markers.map(lambda m: f"' OR 1=1; -- {m}"),
    markers.map(lambda m: f"<script>{m}</script>"),
    markers.map(lambda m: m + "\x00"),
    markers.map(lambda m: m + "\ud800"),
    markers.map(lambda m: "%s%n{0}" + m),
    markers.map(lambda m: json.dumps({"name": m, "slug": m})),
    markers.map(lambda m: json.dumps([m])),
    st.builds(
        lambda m, n: m + "x" * n, markers, st.sampled_from([90, 101, 256, 5_000])
    ),
    markers.map(lambda m: m * 30_000),  # ~330 kB: big, under the body limit
)
#: Dictionary keys that never look like a marker (plain-identifier keys may
#: legitimately be named in errors).
safe_keys = st.one_of(
    st.sampled_from(
        [
            "data",
            "objects",
            "items",
            "_items",
            "body",
            "attributes",
            "payload",
            "emial",
            "nmae",
            "id",
            "pk",
            "created_at",
            "device_count",
            "site_id",
            "tags__name",
            "name__icontains",
            "x-y",
            "",
            " ",
            "\u00e9",
            "$ref",
            "__proto__",
            "a" * 200,
        ]
    ),
    st.text(max_size=12).filter(lambda k: "ZZQ" not in k),
)
big_ints = st.one_of(
    st.sampled_from(
        [0, -1, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, -(2**63) - 1, 10**30]
    ),
    st.integers(),
)
floats = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 1.5, -1.5, 1e308, 5e-324, 2.0**63]),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_scalars = st.one_of(st.none(), st.booleans(), big_ints, floats, marked_strings)


def _json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    return st.recursive(
        json_scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(safe_keys, inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )


json_values = _json_values()


def nested(depth: int, leaf: Any, kind: str) -> Any:
    """``leaf`` wrapped ``depth`` times in arrays or objects."""
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "array" else {"a": value}
    return value


deep_values = st.builds(
    nested,
    st.sampled_from([5, 30, 33, 100, 900]),
    markers,
    st.sampled_from(["array", "object"]),
)


def is_text(value: Any) -> bool:
    """Whether every string in ``value`` is Unicode text (no lone surrogate)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def depth_of(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (a scalar is 0)."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            deepest = max(deepest, depth + 1)
    return deepest


def markers_in(value: Any) -> set[str]:
    """Every marker in the strings (not keys) of ``value``."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.update(MARKER_RE.findall(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


# -- the wire --------------------------------------------------------------


def post_raw(
    body: bytes,
    *,
    content_type: str = JSON,
    accept: str | None = ACCEPT_BOTH,
    version: str | None = "2025-11-25",
    origin: str | None = None,
    extra_headers: dict[str, str] | None = None,
) -> TestResponse:
    """POST ``body`` as is; a 500 is returned, not raised."""
    headers: dict[str, str] = dict(extra_headers or {})
    if accept is not None:
        headers["Accept"] = accept
    if version is not None:
        headers["MCP-Protocol-Version"] = version
    if origin is not None:
        headers["Origin"] = origin
    client = Client(raise_request_exception=False)
    return client.post(ENDPOINT, data=body, content_type=content_type, headers=headers)


def encode(message: Any) -> bytes:
    """JSON-encode a message (lone surrogates become ``\\udxxx`` escapes)."""
    return json.dumps(message).encode()


def decode_body(response: TestResponse) -> Any:
    """The JSON-RPC payload of a JSON or one-event SSE response."""
    content_type = response.get("Content-Type", "")
    text = response.content.decode("utf-8")  # must be valid UTF-8
    if content_type.startswith("text/event-stream"):
        data = [
            line[len("data: ") :]
            for line in text.splitlines()
            if line.startswith("data: ") and line[len("data: ") :].strip()
        ]
        assert len(data) == 1, text
        return json.loads(data[0])
    assert content_type.startswith(JSON), content_type
    return json.loads(text)


def readable_id(message: Any) -> Any:
    """The id of a single message if it is a string or integer, else None."""
    if isinstance(message, dict):
        request_id = message.get("id")
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            return request_id
    return None


def check_response_object(reply: Any, request_id: Any) -> None:
    """One JSON-RPC 2.0 response object, answering ``request_id`` (or null)."""
    assert isinstance(reply, dict), reply
    assert reply.get("jsonrpc") == "2.0", reply
    assert "id" in reply, reply
    assert ("result" in reply) != ("error" in reply), reply
    assert set(reply) <= {"jsonrpc", "id", "result", "error"}, reply
    rid = reply["id"]
    assert rid is None or (isinstance(rid, str | int) and not isinstance(rid, bool))
    if "result" in reply:
        assert isinstance(reply["result"], dict), reply
        assert rid == request_id, (rid, request_id)
        assert rid is not None, (rid, request_id)
        return
    error = reply["error"]
    assert isinstance(error, dict), reply
    assert isinstance(error.get("code"), int), error
    assert not isinstance(error["code"], bool), error
    assert isinstance(error.get("message"), str), error
    assert set(error) <= {"code", "message", "data"}, error
    assert error["code"] != -32603, f"internal error: {error}"
    assert rid in (request_id, None), (rid, request_id)


def check_clean(response: TestResponse) -> None:
    """No traceback, SQL or setting anywhere in the body."""
    text = response.content.decode("utf-8", "replace")
    for needle in FORBIDDEN:
        assert needle not in text, f"{needle!r} in {text[:2000]}"


def check_no_echo(
    error_payload: Any, sent: Any, allowed: frozenset[str] = frozenset()
) -> None:
    """None of the markers sent (but ``allowed``) appears in ``error_payload``.

    ``data.requested`` of -32022 is left out: the 2026-07-28 revision
    prescribes that an unsupported version is named back.
    """
    if error_payload.get("code") == -32022 and isinstance(
        error_payload.get("data"), dict
    ):
        data = {k: v for k, v in error_payload["data"].items() if k != "requested"}
        error_payload = {**error_payload, "data": data}
    text = json.dumps(error_payload, ensure_ascii=False)
    echoed = {m for m in markers_in(sent) - allowed if m in text}
    assert not echoed, f"error echoes caller values {echoed}: {text[:2000]}"


def check_not_5xx(response: TestResponse) -> None:
    exc = getattr(response, "exc_info", None)
    assert response.status_code < 500, (
        response.status_code,
        response.content[:2000],
        exc[1] if exc else None,
    )


# -- the demo database -----------------------------------------------------

THROUGH = Device.tags.through
MODELS: dict[str, Any] = {
    "contacts": Contact,
    "dcim__sites": Site,
    "dcim__devices": Device,
    "dcim__tags": Tag,
}
#: Which model a property's ids refer to (the rest: the tool's own model).
REFERENCES: dict[str, Any] = {"site": Site, "tags": Tag}
ACTIONS = ("create", "destroy", "list", "partial_update", "retrieve", "update")


COUNTED = {model.__name__: model for model in MODELS.values()} | {
    "Device.tags": THROUGH
}


def row_counts() -> dict[str, int]:
    """Rows of every demo model and of the device-tag through table (one query)."""
    tables = [connection.ops.quote_name(m._meta.db_table) for m in COUNTED.values()]
    sql = "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t})" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return dict(zip(COUNTED, row, strict=True))


@contextmanager
def rolled_back() -> Iterator[None]:
    """Run one example in a savepoint that is always rolled back."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


class Pools:
    """Existing ids, names and slugs per demo model, to aim values at rows."""

    def __init__(self) -> None:
        self.strategies: dict[str, st.SearchStrategy[Any]] = {}
        self.ids: dict[Any, list[Any]] = {}
        self.names: dict[Any, list[str]] = {}
        self.slugs: dict[Any, list[str]] = {}
        self.tags_of_device: Counter[int] = Counter()
        self.devices_of_tag: Counter[int] = Counter()

    def __repr__(self) -> str:
        return f"Pools({sum(map(len, self.ids.values()))} ids)"

    def arguments_for(self, tool: DemoTool) -> st.SearchStrategy[Any]:
        """The (cached) argument strategy of ``tool``."""
        if tool.name not in self.strategies:
            self.strategies[tool.name] = tool_arguments(tool, self)
        return self.strategies[tool.name]

    @classmethod
    def load(cls) -> Pools:
        pools = cls()
        for model in MODELS.values():
            ids = list(model.objects.values_list("pk", flat=True))
            pools.ids[model] = [str(i) if model is Contact else i for i in ids]
        for model in (Site, Tag):
            pools.names[model] = list(model.objects.values_list("name", flat=True))
            pools.slugs[model] = list(model.objects.values_list("slug", flat=True))
        pools.names[Device] = list(Device.objects.values_list("name", flat=True))
        for device_id, tag_id in THROUGH.objects.values_list("device_id", "tag_id"):
            pools.tags_of_device[device_id] += 1
            pools.devices_of_tag[tag_id] += 1
        return pools


class DemoTool:
    """A demo tool from tools/list, with what it is for."""

    def __init__(self, name: str, schema: dict[str, Any]) -> None:
        self.name = name
        self.schema = schema

    def __repr__(self) -> str:
        return f"DemoTool({self.name!r})"

    @property
    def model(self) -> Any:
        return MODELS[self.name.rsplit("__", 1)[0]]

    @property
    def action(self) -> str:
        return self.name.rsplit("__", 1)[1]


class DemoTools(dict[str, DemoTool]):
    """The demo tools by name (with a short repr for hypothesis reports)."""

    def __repr__(self) -> str:
        return f"DemoTools({len(self)} tools)"


@pytest.fixture
def demo_tools(demo_data: None) -> DemoTools:
    """Every demo tool, discovered through tools/list."""
    mcp = MCPTestClient()
    mcp.initialize()
    tools = DemoTools(
        {
            t["name"]: DemoTool(t["name"], t["inputSchema"])
            for t in mcp.list_tools()
            if t["name"].startswith(("contacts__", "dcim__"))
        }
    )
    expected = {f"{prefix}__{action}" for prefix in MODELS for action in ACTIONS}
    assert set(tools) == expected
    return tools


@pytest.fixture
def pools(demo_data: None) -> Pools:
    """The seeded rows, plus a site and a tag nothing refers to (deletable)."""
    Site.objects.create(name="Empty site", slug="empty-site")
    Tag.objects.create(name="unused", slug="unused")
    return Pools.load()


# -- schema-shaped argument strategies -------------------------------------


#: Properties whose integers (and numeric strings, UUIDs) are row ids.
ID_KEYS = frozenset({"id", "site", "tags"})


def valid_value(
    schema: dict[str, Any],
    key: str,
    model: Any,
    pools: Pools,
    *,
    clean: bool,
    lookup: bool = False,
) -> st.SearchStrategy[Any]:
    """Values that fit ``schema``, aimed at existing rows of ``model``.

    ``clean`` values should pass the serializer too (existing ids, fresh
    unique strings); otherwise schema-valid but hostile strings and
    ids of missing rows are mixed in. ``lookup``: inside a lookup object,
    where names and slugs of existing rows are what resolves.
    """
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema and "type" not in schema:
        return st.one_of(
            [
                valid_value(s, key, model, pools, clean=clean, lookup=lookup)
                for s in schema["anyOf"]
            ]
        )
    kind = schema.get("type")
    ids = pools.ids.get(model) or [1]
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        if key in ID_KEYS:
            existing = st.sampled_from(ids)
            return existing if clean else st.one_of(existing, st.integers(-3, 10_000))
        low = schema.get("minimum", 0)
        high = min(schema.get("maximum", 50), 50) if clean else 10_000
        return st.integers(low, high)
    if kind == "array":
        items = valid_value(
            schema.get("items", {}), key, model, pools, clean=clean, lookup=lookup
        )
        return st.lists(
            items,
            min_size=schema.get("minItems", 0),
            max_size=3,
            unique_by=(lambda v: json.dumps(v)) if schema.get("uniqueItems") else None,
        )
    if kind == "object":
        optional = {
            sub: valid_value(
                subschema,
                sub,
                REFERENCES.get(sub, model),
                pools,
                clean=clean,
                lookup=key in REFERENCES,
            )
            for sub, subschema in schema.get("properties", {}).items()
        }
        if clean and key in REFERENCES:
            # One unique key of one existing row: a lookup that resolves.
            return st.one_of(
                [st.fixed_dictionaries({sub: v}) for sub, v in optional.items()]
            )
        result = st.fixed_dictionaries({}, optional=optional)
        if schema.get("minProperties"):
            result = result.filter(lambda d: len(d) >= schema["minProperties"])
        return result
    if kind == "string":
        if schema.get("format") == "uuid":
            existing = st.sampled_from(ids)
            return existing if clean else st.one_of(existing, st.uuids().map(str))
        if schema.get("pattern") == "^-?[0-9]+$":
            existing = st.sampled_from(ids)
            numbers = (
                existing if clean else st.one_of(existing, st.integers(-3, 10_000))
            )
            return numbers.map(str)
        if schema.get("format") == "email":
            return markers.map(lambda m: f"{m.lower()}@example.com")
        if schema.get("maxLength") == 0:
            return st.just("")
        if lookup:
            names = (pools.slugs if key == "slug" else pools.names).get(model, [])
            existing = st.sampled_from(names or ["x"])
            return existing if clean else st.one_of(existing, marked_strings)
        if clean:
            return st.one_of(markers, markers.map(lambda m: m + "-a_1"))
        return marked_strings
    return json_values


#: Lookup objects on the unique fields, holding hostile values.
hostile_lookups = st.dictionaries(
    st.sampled_from(["id", "name", "slug"]),
    st.one_of(marked_strings, big_ints, floats),
    min_size=1,
    max_size=2,
)


def edge_value(
    schema: dict[str, Any], key: str, model: Any, pools: Pools
) -> st.SearchStrategy[Any]:
    """Wrong types, edge sizes, JSON strings, bad lookups and deep nesting."""
    ids = pools.ids.get(model) or [1]
    return st.one_of(
        st.none(),
        st.booleans(),
        big_ints,
        floats,
        marked_strings,
        st.sampled_from(["", " ", "0", "-1", "1.5", "true", "null", "[]", "{}"]),
        st.sampled_from(ids).map(json.dumps),
        st.sampled_from(ids).map(lambda i: {"id": i, "pk": i}),
        markers.map(lambda m: {"name__icontains": m}),
        markers.map(lambda m: {"id": m}),
        markers.map(lambda m: {"name": m, "slug": m}),
        hostile_lookups,
        st.lists(hostile_lookups, min_size=1, max_size=2),
        st.just({}),
        st.lists(st.one_of(markers, big_ints, st.none()), max_size=3),
        valid_value(schema, key, model, pools, clean=True).map(json.dumps),
        deep_values,
        json_values,
    )


#: Scalars to plant anywhere in a good call, lookup objects and lists included.
hostile_scalars = st.one_of(marked_strings, marked_strings, big_ints, floats, st.none())


def leaf_paths(value: Any) -> list[tuple[Any, ...]]:
    """Paths to every scalar in ``value`` (keys and indexes)."""
    paths: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            stack.extend(((*path, k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend(((*path, i), v) for i, v in enumerate(item))
        elif path:
            paths.append(path)
    return sorted(paths, key=repr)


def replace_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the scalar at ``path`` replaced by ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replace_at(value[head], rest, new)}
    copy = list(value)
    copy[head] = replace_at(copy[head], rest, new)
    return copy


def poisoned(base: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``base`` values with one scalar, at any depth, made hostile."""

    @st.composite
    def plant(draw: st.DrawFn) -> Any:
        value = draw(base)
        paths = leaf_paths(value)
        if not paths:
            return value
        path = draw(st.sampled_from(paths))
        return replace_at(value, path, draw(hostile_scalars))

    return plant()


def tool_arguments(tool: DemoTool, pools: Pools) -> st.SearchStrategy[Any]:
    """Arguments for ``tool``: schema-shaped, edgy, wrapped, bulk or arbitrary."""
    properties: dict[str, Any] = tool.schema.get("properties", {})
    required = list(tool.schema.get("required", []))
    plain = [k for k in properties if k not in ("help", "mode", "continuation_token")]

    def value(key: str, *, clean: bool) -> st.SearchStrategy[Any]:
        model = REFERENCES.get(key, tool.model)
        return valid_value(properties[key], key, model, pools, clean=clean)

    def edgy(key: str) -> st.SearchStrategy[Any]:
        model = REFERENCES.get(key, tool.model)
        return edge_value(properties.get(key, {}), key, model, pools)

    def shaped(clean: bool) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            {k: value(k, clean=clean) for k in required},
            optional={k: value(k, clean=clean) for k in plain if k not in required},
        )

    good, sloppy = shaped(clean=True), shaped(clean=False)
    mixed = st.fixed_dictionaries(
        {},
        optional={
            k: st.one_of(value(k, clean=True), value(k, clean=False), edgy(k))
            for k in properties
        },
    )
    extra = st.builds(
        lambda base, more: {**base, **more},
        st.one_of(good, mixed),
        st.dictionaries(
            safe_keys, st.one_of(json_values, good), min_size=1, max_size=2
        ),
    )
    protocol = st.builds(
        lambda base, more: {**base, **more},
        good,
        st.fixed_dictionaries(
            {},
            optional={
                "help": st.one_of(st.booleans(), edgy("help")),
                "mode": st.one_of(
                    st.sampled_from(["validate", "execute"]), edgy("mode")
                ),
            },
        ),
    )
    wrapped = st.builds(
        lambda key, inner, as_json: {key: json.dumps(inner) if as_json else inner},
        st.sampled_from(["data", "body", "attributes", "payload", "fields", "params"]),
        st.one_of(good, mixed),
        st.booleans(),
    )
    bulk = st.builds(
        lambda key, items, as_json: {key: json.dumps(items) if as_json else items},
        st.sampled_from(["objects", "data", "items", "_items", "body"]),
        st.one_of(
            st.lists(good, min_size=1, max_size=4),
            st.lists(st.one_of(good, sloppy, mixed, json_values), max_size=4),
        ),
        st.booleans(),
    )
    arbitrary = st.dictionaries(safe_keys, json_values, max_size=4)
    not_an_object = json_values.filter(lambda v: not isinstance(v, dict))
    # A good call with exactly one value made bad: reaches the deepest code.
    bad_pair = st.sampled_from(plain).flatmap(
        lambda k: st.tuples(st.just(k), st.one_of(value(k, clean=False), edgy(k)))
    )
    one_bad = st.tuples(good, bad_pair).map(lambda t: {**t[0], t[1][0]: t[1][1]})
    return st.one_of(
        good,
        good,
        one_bad,
        poisoned(good),
        poisoned(good),
        sloppy,
        mixed,
        extra,
        protocol,
        wrapped,
        bulk,
        arbitrary,
        not_an_object,
    )


# -- one tools/call and its checks -----------------------------------------


@dataclass
class Outcome:
    """What one tools/call did."""

    status: int
    reply: Any
    rejected: bool
    before: dict[str, int]
    after: dict[str, int]


def keys_in(value: Any) -> set[str]:
    """Every object key in ``value``, also inside strings holding JSON."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item[:1] in ("{", "["):
            with contextlib.suppress(ValueError, RecursionError):
                stack.append(json.loads(item))
        elif isinstance(item, dict):
            found.update(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def check_error_fields(tool: DemoTool, arguments: Any, data: Any) -> None:
    """Fields an error names are the tool's or the caller's, nothing else.

    (A view's own response keys, such as a page's ``count``, are neither.)
    """
    if not isinstance(data, dict):
        return
    allowed = keys_in(tool.schema) | keys_in(arguments)
    allowed |= {"non_field_errors", "arguments", "<key>", ""}
    named = [data.get("field")] + [
        entry.get("field")
        for entry in data.get("fields") or []
        if isinstance(entry, dict)
    ]
    for name in named:
        if isinstance(name, str):
            root = re.split(r"[.\[]", name, maxsplit=1)[0]
            assert root in allowed, (tool.name, name, data)


def call_and_check(tool: DemoTool, arguments: Any, pools: Pools) -> Outcome:
    """Call ``tool`` over the wire and check everything but the row deltas."""
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": tool.name, "arguments": arguments},
    }
    body = encode(message)
    before = row_counts()
    response = post_raw(body)
    check_not_5xx(response)
    check_clean(response)
    status = response.status_code
    if status == 413:
        assert len(body) > int(mcp_settings.MAX_REQUEST_BYTES)
    reply = decode_body(response)
    check_response_object(reply, 7)
    if status == 400 and not is_text(message):
        # A lone surrogate escape: the body is no Unicode text at all, so
        # it is a parse error even when it is also nested too deeply.
        assert reply["error"]["code"] in (-32700, -32600), reply
    elif status == 400 and depth_of(message) > int(mcp_settings.MAX_JSON_DEPTH):
        assert reply["error"]["code"] == -32600, reply
    elif status != 413:
        assert status == 200, (status, reply)
        assert reply["id"] == 7, reply
    after = row_counts()
    if "error" in reply:
        rejected = True
        check_no_echo(reply["error"], arguments)
        check_error_fields(tool, arguments, reply["error"].get("data"))
    else:
        result = reply["result"]
        assert isinstance(result.get("content"), list), result
        assert isinstance(result.get("isError"), bool), result
        rejected = result["isError"]
        # An error of a tool listed with an outputSchema is text only
        # (ADR 0038).
        listed = get_registry().lists_output_schema(tool.name)
        structured = isinstance(result.get("structuredContent"), dict)
        assert structured is not (rejected and listed), result
        if rejected:
            check_no_echo(result, arguments)
            error = tool_error(result)
            assert isinstance(error, dict), result
            check_error_fields(tool, arguments, error)
            if tool.action in ("list", "retrieve"):
                # A read has nothing to conflict with.
                assert error.get("code") != "conflict", (tool.name, error)
    if rejected:
        assert after == before, f"a rejected call wrote rows: {before} -> {after}"
    return Outcome(status, reply, rejected, before, after)


def expected_delta(
    tool: DemoTool, arguments: Any, outcome: Outcome, pools: Pools
) -> dict[str, int]:
    """The row-count change an accepted call of ``tool`` must make."""
    delta = dict.fromkeys(outcome.before, 0)
    if not isinstance(arguments, dict):
        return delta
    if arguments.get("help") is True or arguments.get("mode") == "validate":
        return delta
    structured = outcome.reply["result"]["structuredContent"]
    model = tool.model.__name__
    if tool.action == "create":
        rows = structured.get("results") if "created" in structured else [structured]
        delta[model] = len(rows)
        if tool.model is Device:
            delta["Device.tags"] = sum(len(row.get("tags", [])) for row in rows)
    elif tool.action == "destroy":
        delta[model] = -1
        if tool.model is Device:
            delta["Device.tags"] = -pools.tags_of_device[arguments["id"]]
        elif tool.model is Tag:
            delta["Device.tags"] = -pools.devices_of_tag[arguments["id"]]
    elif tool.action in ("update", "partial_update") and tool.model is Device:
        device = int(arguments["id"])
        now = THROUGH.objects.filter(device_id=device).count()
        assert now == len(structured["tags"]), structured
        delta["Device.tags"] = now - pools.tags_of_device[device]
    return delta


def fuzz_one(tool: DemoTool, arguments: Any, pools: Pools) -> None:
    """One example: call, check, compare counts, roll back."""
    with rolled_back():
        outcome = call_and_check(tool, arguments, pools)
        # Seen with --hypothesis-show-statistics: both paths must be reached.
        event("rejected" if outcome.rejected else "accepted")
        if not outcome.rejected:
            change = {k: outcome.after[k] - outcome.before[k] for k in outcome.before}
            assert change == expected_delta(tool, arguments, outcome, pools), (
                tool.name,
                change,
            )


# -- argument fuzzing ------------------------------------------------------


@pytest.mark.parametrize(
    "tool_name", [f"{prefix}__{action}" for prefix in MODELS for action in ACTIONS]
)
@PER_TOOL
@given(data=st.data())
def test_tool_arguments(
    demo_tools: DemoTools, pools: Pools, tool_name: str, data: st.DataObject
) -> None:
    tool = demo_tools[tool_name]
    arguments = data.draw(pools.arguments_for(tool), label="arguments")
    fuzz_one(tool, arguments, pools)


@pytest.fixture(params=["jsonrpc", "tool_result"])
def debug_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """DEBUG=True, with argument errors as JSON-RPC errors or as results."""
    config = {**django_settings.FRISIAN_MCP, "INPUT_ERROR_STYLE": request.param}
    with override_settings(DEBUG=True, FRISIAN_MCP=config):
        yield request.param


@FUZZ
@given(data=st.data())
def test_tool_arguments_with_debug(
    debug_mode: str, demo_tools: DemoTools, pools: Pools, data: st.DataObject
) -> None:
    """DEBUG=True (and either error style) leaks nothing either."""
    assert django_settings.DEBUG
    tool = demo_tools[data.draw(st.sampled_from(sorted(demo_tools)), label="tool")]
    arguments = data.draw(pools.arguments_for(tool), label="arguments")
    fuzz_one(tool, arguments, pools)


# -- envelope fuzzing ------------------------------------------------------

request_ids = st.one_of(
    big_ints,
    st.text(max_size=20),
    markers,
    floats,
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(safe_keys, st.integers(), max_size=2),
)
method_names = st.one_of(
    st.sampled_from(
        [
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "server/discover",
            "notifications/initialized",
            "notifications/cancelled",
            "resources/subscribe",
            "logging/setLevel",
            "rpc.discover",
            "",
            "PING",
            "tools/call/",
        ]
    ),
    st.text(max_size=30),
    markers,
    st.integers(),
    st.none(),
    st.lists(st.text(max_size=5), max_size=2),
)
tool_names = st.one_of(
    st.sampled_from(
        [
            "contacts__create",
            "contacts__list",
            "dcim__sites__create",
            "dcim__devices__retrieve",
            "contacts_create",
            "",
        ]
    ),
    markers,
    st.integers(),
    st.none(),
)
params_values = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "name": tool_names,
            "arguments": json_values,
            "cursor": st.one_of(markers, st.integers(), st.none()),
            "protocolVersion": st.one_of(
                st.sampled_from([*SUPPORTED_VERSIONS, "2024-11-05", "2026-07-28"]),
                markers,
                st.integers(),
            ),
            "capabilities": json_values,
            "clientInfo": json_values,
            "_meta": st.one_of(
                json_values,
                st.fixed_dictionaries(
                    {
                        "io.modelcontextprotocol/protocolVersion": st.one_of(
                            markers, json_values
                        )
                    }
                ),
            ),
        },
    ),
    json_values,
)
loose_envelopes = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(
            st.just("2.0"),
            st.just("2.0"),
            st.sampled_from(["1.0", "2", 2.0, 2, None, ""]),
        ),
        "id": request_ids,
        "method": method_names,
        "params": params_values,
        "result": json_values,
        "error": json_values,
        "ZZQ-extra": json_values,
    },
)
#: Requests that are right but for one or two members.
close_envelopes = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": request_ids, "method": method_names},
    optional={"params": params_values},
)
envelopes = st.one_of(loose_envelopes, close_envelopes)
version_headers = st.one_of(
    st.none(),
    st.sampled_from([*SUPPORTED_VERSIONS, "2024-11-05", "2026-07-28", "", "latest"]),
    markers,
)


def is_notification(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and isinstance(message.get("method"), str)
        and bool(message["method"])
        and "id" not in message
    )


def is_client_response(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and "method" not in message
        and "id" in message
        and ("result" in message or "error" in message)
    )


def is_modern(message: Any, version: str | None) -> bool:
    """Whether the server must treat ``message`` as a 2026-07-28 request.

    Written from MCP-RULES §2 on purpose rather than imported from
    ``frisian_mcp.jsonrpc``: an oracle that calls the code under test
    cannot catch a wrong rule in it.
    """
    if version in MODERN_VERSIONS:
        return True
    if not isinstance(message, dict):
        return False
    if message.get("method") == "server/discover":
        return True
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta


def has_required_meta(message: dict[str, Any]) -> bool:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return (
        isinstance(meta, dict)
        and isinstance(meta.get("io.modelcontextprotocol/protocolVersion"), str)
        and isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict)
    )


def check_envelope_reply(
    message: Any, response: TestResponse, version: str | None, size: int
) -> None:
    """The answer to one POSTed JSON value, per MCP-RULES.md and JSON-RPC 2.0."""
    modern = is_modern(message, version)
    check_not_5xx(response)
    check_clean(response)
    status = response.status_code
    depth_limit = int(mcp_settings.MAX_JSON_DEPTH)
    if status == 202:
        assert response.content == b"", response.content
        return
    reply = decode_body(response)
    if status == 413:
        assert size > int(mcp_settings.MAX_REQUEST_BYTES), size
        check_response_object(reply, None)
        assert reply["id"] is None, reply
        return
    if isinstance(reply, list):
        # A 2025-03-26 batch: one response per request, none for notifications.
        assert not modern, (message, reply)
        assert isinstance(message, list), (message, reply)
        assert message, (message, reply)
        assert status == 200
        expected = [
            m for m in message if not is_notification(m) and not is_client_response(m)
        ]
        assert len(reply) == len(expected), (message, reply)
        for sent, answer in zip(expected, reply, strict=True):
            check_response_object(answer, readable_id(sent))
        return
    request_id = readable_id(message)
    check_response_object(reply, request_id)
    if "error" in reply:
        code = reply["error"]["code"]
        if modern and code == -32602:
            assert status in (200, 400), (status, reply)
        elif modern:
            assert status == MODERN_ERROR_STATUS.get(code, 200), (status, reply)
        else:
            assert status == ERROR_STATUS.get(code, 200), (status, reply)
        # A short method name may be named back ("Method not found: x").
        method = message.get("method") if isinstance(message, dict) else None
        check_no_echo(reply["error"], message, frozenset(markers_in(method)))
    else:
        assert status == 200, (status, reply)
    if depth_of(message) > depth_limit:
        assert "error" in reply, reply
        assert reply["error"]["code"] == -32600, reply
        return
    if not is_text(message):
        # A lone surrogate escape: the body is no Unicode text at all.
        assert status == 400, reply
        assert reply["error"]["code"] in (-32700, -32600), reply
        return
    if not isinstance(message, dict | list):
        assert status == 400, reply
        assert reply["error"]["code"] == -32600, reply
        return
    if modern:
        check_modern_reply(message, reply, status)
        return
    if version is not None and version not in SUPPORTED_VERSIONS:
        # MCP-RULES 8: an unsupported MCP-Protocol-Version header gets 400.
        assert status == 400, (status, reply)
        assert reply["error"]["code"] == -32022, reply
        return
    if isinstance(message, list):
        # MCP-RULES 3: no batches since 2025-06-18 (or empty, or initialize).
        assert status == 400, reply
        assert reply["error"]["code"] == -32600, reply
        assert reply["id"] is None
        return
    # MCP-RULES 4 and 16: notifications and client responses get 202.
    assert not is_notification(message), (message, reply)
    assert not is_client_response(message), (message, reply)
    if (
        message.get("jsonrpc") == "2.0"
        and isinstance(message.get("method"), str)
        and "id" in message
        and readable_id(message) is None
    ):
        # MCP-RULES 14: ids are strings or integers (never null, floats...).
        assert reply["error"]["code"] == -32600, (message, reply)
        assert status == 400, (message, reply)
    if request_id is not None:
        # MCP-RULES 15: the error carries the request id when it is readable.
        assert reply["id"] == request_id, (message, reply)


def check_modern_reply(message: Any, reply: Any, status: int) -> None:
    """MCP-RULES §2: what a 2026-07-28 request that is JSON text gets."""
    if isinstance(message, list):
        # One message per POST: no batches.
        assert (status, reply["error"]["code"]) == (400, -32600), reply
        return
    # 2026-07-28 streamable-http "Sending Messages": clients send no responses.
    assert not is_notification(message), (message, reply)
    if is_client_response(message):
        assert (status, reply["error"]["code"]) == (400, -32600), reply
        return
    if (
        message.get("jsonrpc") == "2.0"
        and isinstance(message.get("method"), str)
        and message["method"]
        and not message["method"].startswith("notifications/")
        and readable_id(message) is not None
        and isinstance(message.get("params", {}), dict | None)
    ):
        if not has_required_meta(message):
            # MCP-RULES §2.3: a required _meta field missing: -32602, 400.
            assert (status, reply["error"]["code"]) == (400, -32602), reply
        else:
            # These bodies come without Mcp-Method: a header mismatch, or an
            # unsupported version, before any method runs.
            assert status == 400, reply
            assert reply["error"]["code"] in (-32020, -32022), reply
        assert reply["id"] == readable_id(message), reply


@FUZZ
@given(message=json_values, version=version_headers)
@example(message=None, version=None)
@example(message=[], version=None)
@example(message=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], version=None)
def test_arbitrary_json_bodies(
    demo_data: None, message: Any, version: str | None
) -> None:
    with rolled_back():
        before = row_counts()
        body = encode(message)
        response = post_raw(body, version=version)
        check_envelope_reply(message, response, version, len(body))
        assert row_counts() == before


@FUZZ
@given(
    message=envelopes,
    version=version_headers,
    batch=st.one_of(st.none(), st.lists(envelopes, max_size=3)),
)
@example(
    message={"jsonrpc": "2.0", "id": 2**70, "method": "ping"}, version=None, batch=None
)
@example(
    message={"jsonrpc": "2.0", "id": True, "method": "ping"}, version=None, batch=None
)
@example(
    message={"jsonrpc": "2.0", "id": 1.0, "method": "ping"}, version=None, batch=None
)
@example(
    message={
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": "contacts__create", "arguments": {"email": "a@example.com"}},
    },
    version="2025-11-25",
    batch=None,
)
@example(
    message={"jsonrpc": "2.0", "id": 1, "method": "ping"},
    version="2025-03-26",
    batch=[
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "x", "result": {}},
    ],
)
def test_near_miss_envelopes(
    demo_data: None,
    message: dict[str, Any],
    version: str | None,
    batch: list[Any] | None,
) -> None:
    sent: Any = message if batch is None else [message, *batch]
    with rolled_back():
        before = row_counts()
        body = encode(sent)
        response = post_raw(body, version=version)
        check_envelope_reply(sent, response, version, len(body))
        reply = json.loads(response.content) if response.content else None
        wrote = row_counts() != before
        if wrote:
            # Only an accepted tools/call may write.
            replies = reply if isinstance(reply, list) else [reply]
            assert any(
                isinstance(r, dict)
                and "result" in r
                and r["result"].get("isError") is False
                for r in replies
            ), (sent, reply)


def header_safe(value: Any) -> str | None:
    """``value`` as a 2026-07-28 client mirrors it (``None``: no header)."""
    if not isinstance(value, str):
        return None
    if value.isascii() and value.isprintable() and value == value.strip():
        return value
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return "=?base64?" + base64.b64encode(encoded).decode() + "?="


modern_meta: st.SearchStrategy[dict[str, Any]] = st.fixed_dictionaries(
    {
        "io.modelcontextprotocol/protocolVersion": st.one_of(
            st.just("2026-07-28"), st.just("2026-07-28"), markers, st.just("2027-01-01")
        ),
        "io.modelcontextprotocol/clientCapabilities": st.one_of(
            st.just({}), json_values
        ),
    },
    optional={"io.modelcontextprotocol/clientInfo": json_values},
)


@FUZZ
@given(
    method=st.one_of(
        st.sampled_from(["tools/call"] * 3 + ["tools/list"]), method_names
    ),
    name=tool_names,
    arguments=json_values,
    meta=modern_meta,
    mirror=st.booleans(),
)
@example(
    method="tools/call",
    name="contacts__create",
    arguments={"email": "a@example.com"},
    meta={
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    },
    mirror=True,
)
def test_modern_requests(
    demo_data: None,
    method: Any,
    name: Any,
    arguments: Any,
    meta: dict[str, Any],
    mirror: bool,
) -> None:
    """2026-07-28 requests with (mostly) faithful headers reach the methods.

    Nothing but an accepted ``tools/call`` writes; statuses follow the
    modern rules (400 for -32020/-32022/a missing ``_meta`` field, 404 for
    an unknown method); every result carries ``resultType``.
    """
    message = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": method,
        "params": {"name": name, "arguments": arguments, "_meta": meta},
    }
    version = meta["io.modelcontextprotocol/protocolVersion"]
    headers = {}
    if mirror:
        for header, value in (("Mcp-Method", method), ("Mcp-Name", name)):
            if (safe := header_safe(value)) is not None:
                headers[header] = safe
    with rolled_back():
        before = row_counts()
        body = encode(message)
        response = post_raw(
            body,
            version=version if isinstance(version, str) else None,
            extra_headers=headers,
        )
        check_not_5xx(response)
        check_clean(response)
        reply = decode_body(response)
        status = response.status_code
        if status == 413:
            assert len(body) > int(mcp_settings.MAX_REQUEST_BYTES)
            assert row_counts() == before
            return
        check_response_object(reply, 9)
        if "error" in reply:
            code = reply["error"]["code"]
            if code == -32602:
                assert status in (200, 400), (status, reply)
            else:
                assert status == MODERN_ERROR_STATUS.get(code, 200), (status, reply)
            check_no_echo(reply["error"], message, frozenset(markers_in(method)))
        else:
            assert status == 200, (status, reply)
            assert reply["result"]["resultType"] == "complete", reply
            assert "io.modelcontextprotocol/serverInfo" in reply["result"]["_meta"]
        if row_counts() != before:
            assert method == "tools/call", reply
            assert reply["result"]["isError"] is False, reply


content_types = st.one_of(
    st.sampled_from(
        [
            JSON,
            "application/json; charset=utf-8",
            "Application/JSON",
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=zz",
            "application/json-rpc",
            "text/event-stream",
            "",
        ]
    ),
)
accepts = st.sampled_from(
    [
        ACCEPT_BOTH,
        JSON,
        "text/event-stream",
        "*/*",
        "text/html",
        "application/xml",
        "",
        None,
    ]
)
origins = st.one_of(
    st.none(),
    st.sampled_from(
        ["http://testserver", "https://evil.example", "null", "", "http://"]
    ),
)


def _raw_bodies() -> st.SearchStrategy[bytes]:
    valid = encode({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=100).map(lambda t: t.encode("utf-8", "surrogatepass")),
        # A valid request with a byte that breaks UTF-8 spliced in.
        st.builds(
            lambda i, b: valid[:i] + b + valid[i:],
            st.integers(0, len(valid)),
            st.sampled_from(
                [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"]
            ),
        ),
        # Deep nesting, valid or truncated.
        st.builds(
            lambda n, kind, closed: (
                (b"[" * n + (b"]" * n if closed else b""))
                if kind == "array"
                else (b'{"a":' * n + b"1" + (b"}" * n if closed else b""))
            ),
            st.sampled_from([10, 32, 33, 999, 1000, 5000, 100_000]),
            st.sampled_from(["array", "object"]),
            st.booleans(),
        ),
        st.sampled_from(
            [
                b"",
                b" ",
                b"null",
                b"NaN",
                b"Infinity",
                b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
                b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
                b'{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
                b'{"jsonrpc":"2.0","id":1,"method":"ping","id":2}',
                b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
                b'{"jsonrpc":"2.0","id":1,"method":"\\udfff"}',
                b"\xef\xbb\xbf" + valid,
                valid.decode().encode("utf-16"),
                b"jsonrpc=2.0&id=1&method=ping",
            ]
        ),
    )


@FUZZ
@given(
    body=_raw_bodies(),
    content_type=content_types,
    accept=accepts,
    version=version_headers,
    origin=origins,
)
@example(
    body=encode({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    content_type=JSON,
    accept="text/event-stream",
    version=None,
    origin="http://testserver",
)
def test_raw_bodies_and_headers(
    demo_data: None,
    body: bytes,
    content_type: str,
    accept: str | None,
    version: str | None,
    origin: str | None,
) -> None:
    with rolled_back():
        before = row_counts()
        response = post_raw(
            body,
            content_type=content_type,
            accept=accept,
            version=version,
            origin=origin,
        )
        check_not_5xx(response)
        check_clean(response)
        assert row_counts() == before
        status = response.status_code
        if status == 202:
            assert response.content == b""
            return
        reply = decode_body(response)
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            message = None
        if isinstance(reply, list):
            assert status == 200, reply
            assert isinstance(message, list), reply
            return
        check_response_object(reply, readable_id(message))
        code = reply["error"]["code"] if "error" in reply else None
        if origin is not None and origin != "http://testserver":
            # MCP-RULES 2: a present, invalid Origin gets 403.
            assert status == 403, (status, reply)
            assert reply["id"] is None, (status, reply)
            return
        # The test client sends no Content-Type with an empty body.
        mime = content_type.split(";")[0].strip().lower() if body else ""
        if accept and not {p.split(";")[0].strip() for p in accept.split(",")} & {
            JSON,
            "text/event-stream",
            "*/*",
        }:
            assert status == 406, (status, reply)
        elif mime != JSON:
            assert status == 415, (status, reply)
        elif code is not None:
            assert status == ERROR_STATUS.get(code, 200), (status, reply)
        else:
            assert status == 200, (status, reply)


# -- continuation tokens ---------------------------------------------------


@FUZZ
@given(position=st.integers(min_value=0), replacement=st.characters(codec="ascii"))
def test_tampered_continuation_tokens(
    demo_tools: DemoTools, pools: Pools, position: int, replacement: str
) -> None:
    """A token changed anywhere is refused (or still the same token), never 5xx."""
    mcp = MCPTestClient()
    mcp.initialize()
    first = mcp.call_tool("contacts__list", {"page_size": 2})["structuredContent"]
    token = first["next_token"]
    index = position % len(token)
    tampered = token[:index] + replacement + token[index + 1 :]
    tool = demo_tools["contacts__list"]
    with rolled_back():
        outcome = call_and_check(tool, {"continuation_token": tampered}, pools)
    if tampered != token:
        assert outcome.rejected, outcome.reply
        assert outcome.reply["error"]["data"]["code"] == "invalid_token", outcome.reply


# -- replaying one finding (tests/regressions/) ----------------------------


#: Stand-ins for the id of an existing site and device (ids differ per database).
SITE, DEVICE = "<site id>", "<device id>"


def tool_reply(name: str, arguments: Any) -> tuple[TestResponse, dict[str, Any]]:
    """POST one tools/call (id 1); return the response and its checked body."""
    real = {
        SITE: Site.objects.order_by("pk")[0].pk,
        DEVICE: Device.objects.order_by("pk")[0].pk,
    }
    arguments = {
        k: real.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()
    }
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = post_raw(encode(message))
    check_not_5xx(response)
    check_clean(response)
    reply = decode_body(response)
    check_response_object(reply, 1)
    return response, reply
