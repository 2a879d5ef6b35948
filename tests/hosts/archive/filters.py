"""The archive's filter set: the filter classes real hosts write themselves.

``ObjectFilter`` is paperless-ngx's: a plain ``Filter`` that reads a
comma-separated list of ids. ``MultiValueCharFilter`` is NetBox's (a
``MultipleChoiceFilter`` whose field takes any strings), used for the
per-custom-field filters added in ``__init__``; ``CharInFilter`` is
django-filter's documented ``BaseInFilter`` recipe.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet

from tests.hosts.archive.models import CustomField, Document, Tag


def multivalue_field_factory(field_class: type[forms.Field]) -> type[forms.Field]:
    """A form field taking a list of ``field_class`` values (NetBox's)."""

    class NewField(field_class):  # type: ignore[valid-type,misc]
        widget = forms.SelectMultiple

        def to_python(self, value: Any) -> list[Any]:
            if not value:
                return []
            field = field_class()
            return [field.clean(v) for v in value if v not in ("", None)]

        def run_validators(self, value: Any) -> None:
            for item in value:
                super().run_validators(item)

        def validate(self, value: Any) -> None:
            for item in value:
                super().validate(item)

    return type(f"MultiValue{field_class.__name__}", (NewField,), {})


# django-filter ships no type information, so its classes are ``Any``.
class MultiValueCharFilter(django_filters.MultipleChoiceFilter):  # type: ignore[misc]
    field_class = multivalue_field_factory(forms.CharField)


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):  # type: ignore[misc]
    pass


class ObjectFilter(django_filters.Filter):  # type: ignore[misc]
    """Documents with every id of a comma-separated list (paperless-ngx's)."""

    def __init__(self, *, field_name: str, exclude: bool = False) -> None:
        super().__init__(field_name=field_name)
        self.exclude = exclude

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        if not value:
            return qs
        try:
            ids = [int(part) for part in str(value).split(",")]
        except ValueError:
            return qs
        for pk in ids:
            lookup = {f"{self.field_name}__id": pk}
            qs = qs.exclude(**lookup) if self.exclude else qs.filter(**lookup)
        return qs


class DocumentFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """Documents by title, status, tags, correspondent and custom fields."""

    tags__id__all = ObjectFilter(field_name="tags")
    tags__id__none = ObjectFilter(field_name="tags", exclude=True)
    status = django_filters.MultipleChoiceFilter(choices=Document.STATUSES)
    tags = django_filters.ModelMultipleChoiceFilter(queryset=Tag.objects.all())
    tag_name = django_filters.ModelMultipleChoiceFilter(
        field_name="tags__name", to_field_name="name", queryset=Tag.objects.all()
    )

    class Meta:
        model = Document
        fields = {
            "id": ["exact", "in"],
            "title": ["icontains"],
            "correspondent__id": ["in"],
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in CustomField.objects.order_by("name").values_list("name", flat=True):
            field = f"custom_fields__{name}"
            self.filters[f"cf_{name}"] = MultiValueCharFilter(field_name=field)
            self.filters[f"cf_{name}__in"] = CharInFilter(
                field_name=field, lookup_expr="in"
            )
