"""A host whose messages quote parts of the values they refuse.

Modelled on the patterns issue 18 met in real applications: a localization
platform's flag check quoting the flag name cut from ``name:value``, a
repository URL refused by its host name, a document manager's
``custom_field_query`` (a JSON expression in a query parameter) quoting one
term, a full-text query quoting a term, and django-filter's own "in" filters
over a comma list. Its URLconf (``tests.hosts.quoting.urls``) serves them
beside the demo's API, and a list of 300 filters and an enum of 2,000
choices for the short-error tests.
"""
