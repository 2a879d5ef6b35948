"""The exception tree is closed: whatever frisian_mcp raises is a FrisianMCPError.

One base lets :func:`frisian_mcp.exceptions.host_call` tell frisian_mcp's
own exceptions (passed on unchanged) from the host's (HostError), and lets
a host catch all of frisian_mcp's at once (issue 21, "Exceptions").
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import frisian_mcp
from frisian_mcp.exceptions import FrisianMCPError, InvalidRequest, host_call
from frisian_mcp.parsers import BodyError
from frisian_mcp.tokens import BadToken

#: Exceptions of the test client, raised in the caller's process, not ours.
_CLIENT_SIDE = {"frisian_mcp.contrib.testing.MCPError"}


def _modules() -> list[str]:
    found = [frisian_mcp.__name__]
    for info in pkgutil.walk_packages(frisian_mcp.__path__, "frisian_mcp."):
        if ".migrations" not in info.name and ".management" not in info.name:
            found.append(info.name)
    return found


def test_every_exception_class_of_the_package_is_in_the_tree() -> None:
    outside = []
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if not (inspect.isclass(value) and issubclass(value, BaseException)):
                continue
            if not value.__module__.startswith("frisian_mcp"):
                continue  # imported from Django, DRF...
            where = f"{value.__module__}.{value.__qualname__}"
            if where not in _CLIENT_SIDE and not issubclass(value, FrisianMCPError):
                outside.append(where)
    assert sorted(set(outside)) == []


@pytest.mark.parametrize("exc", [BadToken("x"), BodyError(InvalidRequest("x"))])
def test_our_own_exceptions_pass_the_host_boundary_unchanged(
    exc: FrisianMCPError,
) -> None:
    def raises() -> None:
        raise exc

    with pytest.raises(type(exc)) as info:
        host_call(raises)
    assert info.value is exc
