"""A network-inventory host's plugin patterns, on the zoo's models.

* ``schema.InventoryAutoSchema``: the host's own ``DEFAULT_SCHEMA_CLASS``. It
  reads the fields of every write's serializer (a "writable" twin without
  read-only fields, as NetBox's ``NetBoxAutoSchema`` builds) and words a
  missing description from ``view.get_serializer_class()``.
  ``schema.CustomFieldsExtension`` is its field-level spectacular extension.
* ``views``: plugin views on plain ``ViewSet``\\ s with a ``serializer_class``
  (no ``get_serializer()``, no ``queryset``), and a plugin view whose code
  raises ``RuntimeError`` while its schema is built.

The URLconf (``urls``) mounts them under ``/api/`` and ``/mcp``; the tests
switch ``DEFAULT_SCHEMA_CLASS`` to the host's with ``override_settings``.
The schema class is written here because no package provides it: NetBox is
an application, not a library a test project can install.
"""
