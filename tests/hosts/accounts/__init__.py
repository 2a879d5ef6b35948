"""An accounts host: people seen per caller, and views that end credentials.

* ``views.UserViewSet`` picks its serializer per caller in
  ``get_serializer_class()``: staff and user managers (``auth.change_user``)
  get ``FullUserSerializer`` and see and set ``email``; everyone else gets
  ``BasicUserSerializer`` (issue 25 item 2).
* ``views.ProfileViewSet.generate_auth_token`` deletes and recreates the
  caller's DRF token, ``views.TokenLoginView`` is an ``ObtainAuthToken``
  subclass and ``views.LogoutView`` deletes the token a call came with: none
  is a tool unless ``CREDENTIAL_TOOLS`` names it (issue 25 item 11).

It has no models of its own: ``django.contrib.auth`` and
``rest_framework.authtoken`` hold its rows.
"""
