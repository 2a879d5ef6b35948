"""Zoo filter sets; devices get one ``cf_<name>`` filter per custom field.

The custom-field filters exist only on a filter-set instance: they are added
in ``__init__`` from the :class:`CustomField` rows, as NetBox adds its own.
"""

from __future__ import annotations

from typing import Any

import django_filters

from tests.zoo.models import CustomField, Device


# django-filter ships no type information, so ``FilterSet`` is ``Any``.
class DeviceFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """Devices by name, status, type slug, manufacturer slug and custom fields."""

    device_type = django_filters.CharFilter(field_name="device_type__slug")
    manufacturer = django_filters.CharFilter(
        field_name="device_type__manufacturer__slug"
    )

    class Meta:
        model = Device
        fields = ("name", "status", "locked")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in CustomField.objects.order_by("name").values_list("name", flat=True):
            self.filters[f"cf_{name}"] = django_filters.CharFilter(
                field_name=f"custom_fields__{name}", label=f"Custom field {name}"
            )
