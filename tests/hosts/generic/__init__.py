"""A network-inventory host assigning IP addresses to any kind of interface.

Modelled on a network-inventory application: an IP address names what it
is assigned to by a content type (``"generic.interface"``, as
``app_label.model``) and an object id. The content type is written through
a related field over ``ContentType`` that reads ``app_label.model`` itself;
four variants of that field (a ``RelatedField`` or a ``SlugRelatedField``
subclass, each with and without ``@extend_schema_field(OpenApiTypes.STR)``)
serve the same model under four routes.
"""
