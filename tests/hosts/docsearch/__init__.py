"""A document-management host: full-text search paged by the host's paginator.

Modelled on a document-management application: documents carry tags through
a ``many=True`` related field whose class supplies ``get_queryset()``; the
list's full-text search asks ``self.paginator.get_page_size()`` and pages its
hits itself; the paginator adds methods of its own (``get_all_result_ids``);
the configuration viewset's ``queryset`` is a manager.
"""
