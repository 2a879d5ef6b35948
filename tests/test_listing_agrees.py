"""Listing agrees with calling, over every test app and kind of user.

Each tool listed to a user must reach its view when that user calls it: the
answer is the view's own (a result, a refusal, "not found", an argument
error), never ``unknown_tool``. A tool not listed answers ``unknown_tool``,
and no answer ever suggests a tool the user was not listed (issue 18 item
9). Writes are called in validate mode, and every call runs in a savepoint
rolled back afterwards.

It runs over every URLconf the suite mounts (:func:`tests.mounted.urlconfs`,
found on disk, under the settings each app needs). By default a test app gets
a row of each of its models, "some permissions" are view and change model
permissions on each, and "object permissions" guardian's on each first row;
a :class:`Host` in :data:`HOSTS` says what they mean where that does not fit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.core.management import call_command
from django.db import models, transaction
from guardian.shortcuts import assign_perm
from model_bakery import baker

from frisian_mcp.contrib.testing import MCPError, MCPTestClient, tool_error
from frisian_mcp.examples import example_value
from frisian_mcp.registry import get_registry
from tests.mounted import mounted, signed_in, urlconfs

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

Grant = Callable[[User], None]


def _model_perms(*labels: str) -> Grant:
    """Grant the model permissions ``app_label.codename``."""

    def grant(user: User) -> None:
        for label in labels:
            app, codename = label.split(".")
            user.user_permissions.add(
                Permission.objects.get(content_type__app_label=app, codename=codename)
            )

    return grant


def _object_perms(model: str, *codenames: str) -> Grant:
    """Grant guardian object permissions on the first row of ``model``."""

    def grant(user: User) -> None:
        from django.apps import apps

        row = apps.get_model(model).objects.order_by("pk").first()
        assert row is not None, f"{model} has no rows to grant"
        app = model.split(".")[0]
        for codename in codenames:
            assign_perm(f"{app}.{codename}", user, row)

    return grant


def _both(*grants: Grant) -> Grant:
    def grant(user: User) -> None:
        for one in grants:
            one(user)

    return grant


def _seed_demo() -> None:
    call_command("seed_demo", stdout=_Null())


def _seed_zoo() -> None:
    from tests.zoo.models import Device, DeviceType, Manufacturer, Tag

    acme = Manufacturer.objects.create(name="Acme", slug="acme")
    kind = DeviceType.objects.create(manufacturer=acme, model="X1", slug="x1")
    Tag.objects.create(name="Production", slug="prod")
    Device.objects.create(name="core-1", device_type=kind)


def _zoo_reader(user: User) -> None:
    from tests.zoo.permissions import READERS_GROUP

    user.groups.add(Group.objects.get_or_create(name=READERS_GROUP)[0])


def _seed_guarded() -> None:
    from tests.hosts.guarded.models import Component, Language, Project

    alpha = Project.objects.create(slug="alpha", name="Alpha")
    Project.objects.create(slug="beta", name="Beta")
    Component.objects.create(project=alpha, slug="core", name="Core")
    Language.objects.create(code="nl", name="Dutch")


def _seed_publishers() -> None:
    from tests.testapp.models import Publisher

    for pk, (name, country) in enumerate([("Alpha", "NL"), ("Beta", "DE")], 101):
        Publisher.objects.create(pk=pk, name=name, country=country, code=name[:2])


def _registry_models() -> list[type[models.Model]]:
    """The models of the current URLconf's tools, managed ones only."""
    found = {t.model for t in get_registry() if t.model is not None}
    return sorted((m for m in found if m._meta.managed), key=str)


def _seed_each() -> None:
    """A row of every model that has none (model-bakery fills the fields)."""
    for model in _registry_models():
        if not model._default_manager.exists():
            baker.make(model)


def _view_and_change(user: User) -> None:
    """Model permissions to view and change each model, nothing more."""
    for model in _registry_models():
        meta = model._meta
        for action in ("view", "change"):
            user.user_permissions.add(
                Permission.objects.get(
                    content_type__app_label=meta.app_label,
                    codename=f"{action}_{meta.model_name}",
                )
            )


def _each_first_row(user: User) -> None:
    """Guardian's view and change on the first row of each model."""
    for model in _registry_models():
        row = model._default_manager.order_by("pk").first()
        meta = model._meta
        for action in ("view", "change"):
            assign_perm(f"{meta.app_label}.{action}_{meta.model_name}", user, row)


_TESTAPP = _model_perms("testapp.add_publisher", "testapp.change_publisher")
_TESTAPP_ROWS = _object_perms("testapp.publisher", "change_publisher")


@dataclass(frozen=True)
class Host:
    """One test app as this test drives it."""

    seed: Callable[[], None] = _seed_each
    #: "Some permissions": model permissions, group memberships.
    some: Grant = _view_and_change
    #: "Object permissions": guardian grants on rows.
    objects: Grant = _each_first_row


_DEMO = Host(
    _seed_demo,
    _model_perms("contacts.add_contact", "dcim.change_site"),
    _object_perms("dcim.site", "change_site", "delete_site"),
)

#: URLconf -> how this test drives it, where the default does not fit.
HOSTS = {
    "tests.urls": _DEMO,
    "demo_project.urls": _DEMO,
    "tests.urls_parity": Host(
        _seed_demo,
        _model_perms("contacts.add_contact", "dcim.change_site", "dcim.view_site"),
        _object_perms("dcim.site", "change_site", "delete_site"),
    ),
    "tests.urls_zoo": Host(
        _seed_zoo,
        _both(_zoo_reader, _model_perms("zoo.add_device", "zoo.change_device")),
        _object_perms("zoo.device", "change_device"),
    ),
    "tests.hosts.guarded.urls": Host(
        _seed_guarded,
        _model_perms(
            "guarded.add_project", "guarded.change_project", "guarded.add_language"
        ),
        _object_perms("guarded.project", "view_project", "change_project"),
    ),
    "tests.test_pagination_patterns": Host(_seed_publishers, _TESTAPP, _TESTAPP_ROWS),
    "tests.urls_versioned": Host(_seed_publishers, _TESTAPP, _TESTAPP_ROWS),
    "tests.urls_schema_patterns": Host(_seed_publishers, _TESTAPP, _TESTAPP_ROWS),
    "tests.urls_errors": Host(_seed_publishers, _TESTAPP, _TESTAPP_ROWS),
}
URLCONFS = urlconfs()

USERS = (
    "anonymous",
    "no_permissions",
    "some_permissions",
    "object_permissions",
    "superuser",
)


def _client(host: Host, kind: str) -> MCPTestClient:
    if kind == "anonymous":
        return signed_in(None)
    if kind == "superuser":
        user = User.objects.create_superuser(kind, password="pw")
    else:
        user = User.objects.create_user(kind, password="pw")
    if kind == "some_permissions":
        host.some(user)
    elif kind == "object_permissions":
        host.objects(user)
    return signed_in(user)


def harmless_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    """The required arguments (example values), and validate mode for writes."""
    schema = tool["inputSchema"]
    properties = schema.get("properties", {})
    arguments = {
        name: example_value(properties[name]) for name in schema.get("required", ())
    }
    if not tool["annotations"].get("readOnlyHint") and "mode" in properties:
        arguments["mode"] = "validate"
    return arguments


def outcome(mcp: MCPTestClient, name: str, arguments: dict[str, Any]) -> Any:
    """The error data of one call, or ``None``; nothing it does is kept."""
    with transaction.atomic():
        try:
            result = mcp.call_tool(name, arguments)
        except MCPError as exc:
            return exc.data or {"code": exc.code}
        finally:
            transaction.set_rollback(True)
    return tool_error(result) if result.get("isError") else None


@pytest.fixture(params=URLCONFS)
def host(request: pytest.FixtureRequest) -> Iterator[Host]:
    chosen = HOSTS.get(request.param, Host())
    with mounted(
        request.param, {"REQUIRE_AUTHENTICATION": False, "TOOL_LAYOUT": "flat"}
    ):
        chosen.seed()
        yield chosen


def test_every_host_named_is_mounted() -> None:
    assert set(HOSTS) <= set(URLCONFS)


@pytest.mark.parametrize("kind", USERS)
def test_every_listed_tool_reaches_its_view(host: Host, kind: str) -> None:
    mcp = _client(host, kind)
    listed = {tool["name"]: tool for tool in mcp.list_tools()}
    assert listed or kind != "superuser", "a superuser is listed no tool"
    unknown = {}
    for name, tool in listed.items():
        error = outcome(mcp, name, harmless_arguments(tool))
        if error is not None and error.get("code") == "unknown_tool":
            unknown[name] = error
    assert unknown == {}


@pytest.mark.parametrize("kind", USERS)
def test_no_answer_suggests_a_tool_not_listed(host: Host, kind: str) -> None:
    mcp = _client(host, kind)
    listed = {tool["name"] for tool in mcp.list_tools()}
    everything = {tool.name for tool in get_registry()}
    assert listed <= everything
    for name in sorted(everything - listed):
        error = outcome(mcp, name, {})
        assert error["code"] == "unknown_tool", name
        assert set(error["suggestions"]) <= listed, name
    for name in sorted(listed):
        error = outcome(mcp, name + "x", {})
        assert error["code"] == "unknown_tool", name
        assert set(error["suggestions"]) <= listed, name


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass
