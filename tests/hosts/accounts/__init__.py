"""An accounts host: people seen per caller.

* ``views.UserViewSet`` picks its serializer per caller in
  ``get_serializer_class()``: staff and user managers (``auth.change_user``)
  get ``FullUserSerializer`` and see and set ``email``; everyone else gets
  ``BasicUserSerializer`` (issue 25 item 2).

It has no models of its own: ``django.contrib.auth`` holds its rows.
"""
