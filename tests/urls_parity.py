"""URLs of the REST-parity suite: the demo API with the demo's access policy.

DRF copies ``DEFAULT_AUTHENTICATION_CLASSES`` and ``DEFAULT_PERMISSION_CLASSES``
into ``APIView`` when it is imported, so overriding ``REST_FRAMEWORK`` in a test
does not reach viewsets that already exist. The viewsets here are subclasses
that set the demo project's policy (token and session authentication, Django
model permissions) explicitly; they are mounted at the demo's own paths, with
two test-app viewsets for an object-level permission and per-user scoping.
"""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.permissions import DjangoModelPermissions
from rest_framework.routers import DefaultRouter

from demo_project.contacts.views import ContactViewSet
from demo_project.dcim.views import DeviceViewSet, SiteViewSet, TagViewSet
from tests.testapp.views import GuardedPublisherViewSet, ScopedBookViewSet

AUTHENTICATION = (TokenAuthentication, SessionAuthentication)
PERMISSIONS = (DjangoModelPermissions,)


def with_policy(viewset: type[Any], **policy: Any) -> type[Any]:
    """A subclass of ``viewset`` with the demo's policy (or ``policy``).

    Keeps the docstring, so tool descriptions match the demo's.
    """
    attrs = {
        "__doc__": viewset.__doc__,
        "__module__": __name__,
        "authentication_classes": AUTHENTICATION,
        "permission_classes": PERMISSIONS,
        **policy,
    }
    return type(f"Parity{viewset.__name__}", (viewset,), attrs)


router = DefaultRouter()
router.register("contacts", with_policy(ContactViewSet))
router.register("dcim/sites", with_policy(SiteViewSet))
router.register("dcim/devices", with_policy(DeviceViewSet))
router.register("dcim/tags", with_policy(TagViewSet))
# Tags for people signed in to the browsable API: no token access.
router.register(
    "dcim/session-tags",
    with_policy(TagViewSet, authentication_classes=(SessionAuthentication,)),
    basename="session-tag",
)
# The test app's own permission classes stay: an object-level permission,
# and per-user scoping.
router.register(
    "testapp/guarded-publishers",
    with_policy(
        GuardedPublisherViewSet,
        permission_classes=GuardedPublisherViewSet.permission_classes,
    ),
    basename="guarded-publisher",
)
router.register(
    "testapp/scoped-books",
    with_policy(
        ScopedBookViewSet, permission_classes=ScopedBookViewSet.permission_classes
    ),
    basename="scoped-book",
)

urlpatterns = [
    path("api/", include(router.urls)),
    path("mcp", include("frisian_mcp.urls")),
]
