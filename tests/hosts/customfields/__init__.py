"""A document host with custom fields whose value takes several JSON types.

Modelled on a document archive: a custom field has a data type (text,
boolean, integer, or several choices) and a custom field instance holds
its value for one document. The ``value`` field reads a boolean, an
integer, a string or a list itself, while the schema says "a string": once
as a field declared ``@extend_schema_field(OpenApiTypes.STR)``, once as a
writable method field whose ``get_value`` returns ``str`` (and takes its
description from DRF's ``Field.get_value``). A document writes its custom
fields nested, as a list of values.
"""
