"""A localization host: custom GET actions that page through the paginator.

Modelled on a localization platform: a translation's units are read through
``/translations/{id}/units/``, an action that calls ``self.paginate_queryset``
itself; other actions page through a helper or through ``self.list``, one
declares a list response, one pages by limit and offset, one does not page.
"""
