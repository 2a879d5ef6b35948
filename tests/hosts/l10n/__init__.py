"""A localization platform's API, as Weblate-like projects shape theirs.

Custom actions read request keys their OpenAPI does not declare: the body
drf-spectacular publishes for them is the viewset's ``serializer_class``,
guessed, as in the localization platform of issue 18.
"""
