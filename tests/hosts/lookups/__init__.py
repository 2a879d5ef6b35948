"""A network-inventory host whose related objects are looked up by attributes.

Modelled on a network-inventory application: manufacturers make device
types (unique by manufacturer and model) and devices have a type. Related
objects are written through writable nested serializers that take an id or
a dictionary of attributes, a nested dictionary naming the related row's
own relation (``{"manufacturer": {"slug": "acme"}, "model": "AX-1"}``),
turned into ``manufacturer__slug`` filter parameters as the host does.
"""
