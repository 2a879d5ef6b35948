"""A document archive's API, shaped as document-management and
network-inventory applications shape their filters.

Documents are found by tags with paperless-style ``tags__id__all`` (a plain
``Filter`` reading comma-separated ids, which drf-spectacular types as one
integer), by django-filter's multiple-choice and ``__in`` filters, and by
per-custom-field filters the filter set adds in ``__init__`` from the
:class:`~tests.hosts.archive.models.CustomField` rows, as NetBox adds its
``cf_<name>`` filters (multi-value ones).
"""
