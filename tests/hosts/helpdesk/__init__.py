"""A helpdesk API whose OpenAPI drf-spectacular can only guess in places.

Custom actions read request keys and query parameters nobody declared, a
DELETE action and an overridden ``destroy`` read a body, a generic view's
``post`` reads exactly its ``serializer_class``, and a viewset picks its
serializers per action in ``get_serializer_class()`` while its ``create``
declares another body (issue 25 item 1, ADR 0030).
"""
