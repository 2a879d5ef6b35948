"""A shop's catalogue: paginators actions build, compressed answers, filters.

Modelled on what real hosts do (issue 25 items 4 to 6): actions that build
a paginator of their own (``LargePagination()`` in the action's body: page
numbers, limit and offset, a cursor), an action that answers a plain list,
views compressed by ``@gzip_page`` or answering ``If-None-Match``, and a
django-filter filter set with CSV, range, multiple-choice and scalar
filters.
"""
