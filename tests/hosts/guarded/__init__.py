"""A host guarded by django-guardian object permissions, with nested routes.

Projects, their components (nested under a project by drf-nested-routers,
with the parent's slug in the URL) and languages (looked up by a writable
``code``), as a localization platform lays them out. Access is decided as
such hosts decide it: DRF's ``DjangoObjectPermissions`` with guardian's
object permissions, guardian's ``ObjectPermissionsFilter`` scoping reads,
and the host's own permission class that reads the parent from the URL.
"""
