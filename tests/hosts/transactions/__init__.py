"""A host whose writes queue tasks, as apps with a task queue do (issue 18 item 7).

Its views record in :data:`views.EVENTS` what happened and what a task
worker (another database connection) saw at that moment, so a tool call and
the same REST request can be compared step by step.
"""
