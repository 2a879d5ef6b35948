"""The catalogue's filter set: django-filter's CSV, range and choice filters.

``NumberInFilter``, ``CharInFilter`` and ``NumberRangeFilter`` are
django-filter's documented recipes (``BaseInFilter``, ``BaseRangeFilter``);
``WordsFilter`` is a ``BaseCSVFilter`` with a method of its own. The filter
set adds a scalar ``feature_<name>`` filter per feature in ``__init__``, as
custom-field filter sets do.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet

from tests.hosts.catalogue.models import Feature, Product


# django-filter ships no type information, so its classes are ``Any``.
class NumberInFilter(django_filters.BaseInFilter, django_filters.NumberFilter):  # type: ignore[misc]
    pass


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):  # type: ignore[misc]
    pass


class NumberRangeFilter(django_filters.BaseRangeFilter, django_filters.NumberFilter):  # type: ignore[misc]
    pass


class WordsFilter(django_filters.BaseCSVFilter, django_filters.CharFilter):  # type: ignore[misc]
    """Products whose name holds every word of a comma-separated list."""

    def filter(self, qs: QuerySet[Any], value: Any) -> QuerySet[Any]:
        for word in value or ():
            qs = qs.filter(name__icontains=word)
        return qs


class ProductFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """Products by ids, SKUs, words, price, release, stock, category, name."""

    id__in = NumberInFilter(field_name="id", lookup_expr="in")
    sku__in = CharInFilter(field_name="sku", lookup_expr="in")
    words = WordsFilter()
    price = django_filters.RangeFilter()
    released = django_filters.DateFromToRangeFilter()
    stock__range = NumberRangeFilter(field_name="stock", lookup_expr="range")
    category = django_filters.MultipleChoiceFilter(choices=Product.CATEGORIES)
    name = django_filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Product
        fields: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in Feature.objects.order_by("name").values_list("name", flat=True):
            self.filters[f"feature_{name}"] = django_filters.CharFilter(
                field_name=f"features__{name}"
            )
