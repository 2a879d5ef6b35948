"""A translation host whose components name their source language in full.

Modelled on a translation platform: a component's ``source_language`` is a
writable nested serializer. Retrieve shows the language with read-only keys
(``id``, ``url``, ``aliases``); a PUT of that body is accepted over REST,
the read-only keys dropped, and the language chosen by its ``code``.
"""
