"""A network-inventory host with bulk routes on its list URLs.

Modelled on a large inventory application: a mixin pair adds bulk update
(PUT and PATCH, a list of objects each with its ``id``) and bulk delete
(DELETE, a list of ``{"id": N}``) to model viewsets, and the host's router
maps them onto each list route. Each bulk action runs in one transaction,
item by item through the view's own serializer and ``perform_*`` hooks, and
skips ids its queryset does not hold, as the application's do. An allocator
(``POST /sites/{id}/available-racks/``) takes one object or a list.
"""
