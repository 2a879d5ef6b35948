"""A network-inventory host: field-level "allow pk" extensions and allocators.

Modelled on a network-inventory application: related objects are written
through brief nested serializers that take an id, a numeric string or an
object of attributes, and the host's drf-spectacular *field* extension
("allow pk") documents them as an integer or the brief object; a hyperlinked
field has a field extension too. Allocator views (``available-prefixes``,
``available-asns``, ``available-vlans``) declare the model's full serializer
as their body and fill in the values they allocate.
"""
