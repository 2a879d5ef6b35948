"""A host using the core's hooks without any extra (docs/extending.md).

``authentication.KeyAuthentication``: API keys that reach only some tools,
as a ``ToolGrant``; ``stores.ProcessStore``: a ``BaseStore`` keeping what a
worker builds in a dict any registry of the process shares.
"""
