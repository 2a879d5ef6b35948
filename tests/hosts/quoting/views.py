"""Serializers, filter sets and viewsets that quote parts of a caller's value."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import django_filters
from django.db.models import QuerySet
from rest_framework import serializers, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from tests.testapp.models import Book, Publisher

#: Flags the localization platform knows; "name:value" flags carry a value.
KNOWN_FLAGS = frozenset({"max-length", "priority", "read-only", "url", "safe-html"})
#: Hosts a repository may be fetched from.
ALLOWED_HOSTS = frozenset({"git.example.org"})
#: An enum far too long to list in one error.
SHELF_MARKS = [f"mark-{n:04d}" for n in range(2000)]


class ComponentSerializer(serializers.ModelSerializer[Book]):
    """A "component": a book with flags, a repository and JSON rules.

    ``validate`` quotes a part of each value it refuses, as real hosts do.
    """

    flags = serializers.CharField(write_only=True, required=False, allow_blank=True)
    repo = serializers.URLField(write_only=True, required=False)
    rules = serializers.CharField(write_only=True, required=False)
    shelf_mark = serializers.ChoiceField(
        choices=SHELF_MARKS, write_only=True, required=False
    )
    method = serializers.ChoiceField(
        choices=["translate", "approve", "suggest"], write_only=True, required=False
    )

    class Meta:
        model = Book
        fields = (
            "id",
            "title",
            "isbn",
            "flags",
            "repo",
            "rules",
            "shelf_mark",
            "method",
        )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for flag in filter(None, attrs.get("flags", "").split(",")):
            name = flag.strip().split(":", 1)[0]
            if name not in KNOWN_FLAGS:
                raise serializers.ValidationError(
                    {"flags": f'Invalid translation flag: "{name}"'}
                )
        host = urlsplit(attrs.get("repo", "")).hostname
        if host is not None and host not in ALLOWED_HOSTS:
            raise serializers.ValidationError(
                {"repo": f"Fetching repositories from {host} is not allowed."}
            )
        if "rules" in attrs:
            for rule in json.loads(attrs["rules"]).get("checks", []):
                if rule not in KNOWN_FLAGS:
                    raise serializers.ValidationError(
                        {"rules": f"Unknown check '{rule}' in rules."}
                    )
        title = attrs.get("title", "")
        if attrs.get("method") == "translate" and title.endswith("?"):
            raise serializers.ValidationError(
                {"title": f"Error while saving translations: {title!r} asks."}
            )
        if title.startswith("Draft"):
            raise serializers.ValidationError(
                {"title": f"Titles such as '{title[:12]}…' are reserved for drafts."}
            )
        return attrs

    def create(self, validated_data: dict[str, Any]) -> Book:
        for name in ("flags", "repo", "rules", "shelf_mark", "method"):
            validated_data.pop(name, None)
        return super().create(validated_data)


class ComponentViewSet(viewsets.ModelViewSet[Book]):
    """Components; a missing one is reported with the id asked for."""

    queryset = Book.objects.all()
    serializer_class = ComponentSerializer

    def get_object(self) -> Book:
        try:
            return super().get_object()
        except Exception:
            raise NotFound(f"Component {self.kwargs['pk']} does not exist.") from None


# django-filter ships no type information, so its classes are ``Any``.
class GenreInFilter(django_filters.BaseInFilter, django_filters.ChoiceFilter):  # type: ignore[misc]
    """``genre__in=a,b``: django-filter's documented "in" filter over choices."""


class DocumentFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """Documents by custom-field expression, full-text query, genres, publishers."""

    custom_field_query = django_filters.CharFilter(method="filter_custom_fields")
    query = django_filters.CharFilter(method="filter_query")
    genre__in = GenreInFilter(field_name="genre", choices=Book.Genre.choices)
    publishers = django_filters.ModelMultipleChoiceFilter(
        field_name="publisher__name",
        to_field_name="name",
        queryset=Publisher.objects.all(),
    )

    class Meta:
        model = Book
        fields = ("title",)

    def filter_custom_fields(
        self, queryset: QuerySet[Book], name: str, value: str
    ) -> QuerySet[Book]:
        """``["AND", [[field, op, value], ...]]``; a document manager's errors."""
        try:
            _, terms = json.loads(value)
        except ValueError:
            raise serializers.ValidationError(
                {name: ["Value must be valid JSON."]}
            ) from None
        errors = {
            str(i): [f"{term[0]!r} is not a valid custom field."]
            for i, term in enumerate(terms)
            if term[0] not in ("owner", "priority")
        }
        if errors:
            raise serializers.ValidationError({name: errors})
        return queryset

    def filter_query(
        self, queryset: QuerySet[Book], name: str, value: str
    ) -> QuerySet[Book]:
        """``field:term`` words; an unknown field is named in the error."""
        for word in value.split():
            field, _, term = word.rpartition(":")
            if field and field not in ("title", "isbn"):
                raise serializers.ValidationError(
                    {name: [f"Unknown field '{field}' in query near '{word}'."]}
                )
            queryset = queryset.filter(title__icontains=term)
        return queryset


class DocumentViewSet(viewsets.ReadOnlyModelViewSet[Book]):
    """Documents: books filtered the document manager's way."""

    queryset = Book.objects.order_by("pk")
    serializer_class = ComponentSerializer
    filterset_class = DocumentFilterSet


#: 300 filters on one list, as a network-inventory list has.
PlatformFilterSet = type(
    "PlatformFilterSet",
    (django_filters.FilterSet,),
    {
        **{
            f"attribute_{n:03d}": django_filters.CharFilter(field_name="title")
            for n in range(300)
        },
        "Meta": type("Meta", (), {"model": Book, "fields": ()}),
    },
)


class PlatformViewSet(viewsets.ReadOnlyModelViewSet[Book]):
    """A list with 300 filters."""

    queryset = Book.objects.order_by("pk")
    serializer_class = ComponentSerializer
    filterset_class = PlatformFilterSet


#: A form of 40 fields, more than an error names.
WideSerializer = type(
    "WideSerializer",
    (serializers.Serializer,),
    {f"field_{n:02d}": serializers.CharField(required=False) for n in range(40)},
)


class WideViewSet(viewsets.GenericViewSet[Book]):
    """A create whose body has 40 fields; it stores nothing."""

    queryset = Book.objects.none()
    serializer_class = WideSerializer

    def create(self, request: Request) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data, status=201)


class CallLogSerializer(serializers.ModelSerializer[Book]):
    """A host that declares a client key as its own field: it is passed on."""

    toolCallId = serializers.CharField(source="isbn", max_length=13)

    class Meta:
        model = Book
        fields = ("id", "title", "toolCallId")


class CallLogViewSet(viewsets.ModelViewSet[Book]):
    """Books keyed by the caller's own ``toolCallId`` field."""

    queryset = Book.objects.all()
    serializer_class = CallLogSerializer
