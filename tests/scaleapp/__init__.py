"""A generated app of 300 models for the scale test and bench/bench_discovery.py.

The models are built in a loop (``models.py``) rather than written out, and
have no tables (``managed = False``): the scale test and the benchmark only
discover tools, build their schemas and answer ``tools/list`` and ``help``
calls, none of which touches the database. Their serializers, viewsets and
routes are generated in ``tests/urls_scale.py``.
"""
