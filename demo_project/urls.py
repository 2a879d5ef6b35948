"""URLs of the demo: the REST API under /api/, its OpenAPI schema, and /mcp.

Plus the OAuth discovery documents at the root (the resource's RFC 9728
metadata, the authorization server's RFC 8414 metadata) and the demo's
authorization server under /oauth/.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from demo_project.authserver import urls as authserver
from demo_project.contacts.views import AttachmentViewSet, ContactViewSet
from demo_project.dcim.views import DeviceViewSet, SiteViewSet, TagViewSet

router = DefaultRouter()
router.register("contacts", ContactViewSet)
router.register("attachments", AttachmentViewSet)
router.register("dcim/sites", SiteViewSet)
router.register("dcim/devices", DeviceViewSet)
router.register("dcim/tags", TagViewSet)

urlpatterns = [
    path("", include("frisian_mcp.contrib.oauth.urls")),
    path("", include(authserver.metadata)),
    path("oauth/", include((authserver.endpoints, "oauth2_provider"))),
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api-auth/", include("rest_framework.urls")),
    path("mcp", include("frisian_mcp.urls")),
]
# The explorer's script and styles under any server while DEBUG is on (as
# runserver serves them); a production site serves collectstatic's output.
urlpatterns += staticfiles_urlpatterns()
