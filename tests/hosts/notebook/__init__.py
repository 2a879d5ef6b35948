"""A notebook host whose texts are hostile: the explorer must show them as text.

Its help texts, choice labels and docstrings hold ``<script>`` and
``<img onerror>`` markup, each setting ``window.__pwned`` if it ever ran.
Its viewsets check Django's model permissions, and it mounts DRF's login
view (``rest_framework.urls``), the explorer's login when ``LOGIN_URL``
leads nowhere.
"""
