"""The host's own permission classes.

``ProjectMember`` reads the parent project from the URL (``project_slug``),
as nested routes' permission classes do, and asks guardian about that
project: ``view_project`` to read its components, ``change_project`` to
write them. A listing cannot know the project, so it cannot decide this.

``LanguageEditor`` lets a user write languages with the model permission,
as a maintainer of any project (a guardian grant), or as a member of the
host's own ``language-editors`` role: grants a listing can see.
"""

from __future__ import annotations

from guardian.shortcuts import get_objects_for_user
from rest_framework.permissions import (
    SAFE_METHODS,
    BasePermission,
    DjangoModelPermissions,
)
from rest_framework.request import Request
from rest_framework.views import APIView

from tests.hosts.guarded.models import Project

__all__ = ["EDITORS_ROLE", "LanguageEditor", "ProjectMember"]

EDITORS_ROLE = "language-editors"


class ProjectMember(BasePermission):
    """Object permissions on the project named in the URL."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        project = Project.objects.filter(slug=view.kwargs["project_slug"]).first()
        if project is None:
            return False
        action = "view" if request.method in SAFE_METHODS else "change"
        return bool(user.has_perm(f"guarded.{action}_project", project))


class LanguageEditor(DjangoModelPermissions):
    """Model permissions, a project to maintain, or the editors' role."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        if super().has_permission(request, view):
            return True
        user = request.user
        if request.method in SAFE_METHODS or not (user and user.is_authenticated):
            return False
        if user.guarded_roles.filter(name=EDITORS_ROLE).exists():
            return True
        maintained = get_objects_for_user(
            user, "guarded.change_project", Project, accept_global_perms=False
        )
        return bool(maintained.exists())
