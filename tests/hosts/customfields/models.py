"""Documents, custom fields, and a custom field's value on a document."""

from __future__ import annotations

from typing import Any

from django.db import models


class Document(models.Model):
    title = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.title


class CustomField(models.Model):
    class DataType(models.TextChoices):
        STRING = "string", "Text"
        BOOLEAN = "boolean", "Boolean"
        INTEGER = "integer", "Integer"
        MULTISELECT = "multiselect", "Several choices"

    name = models.SlugField(max_length=50, unique=True)
    data_type = models.CharField(max_length=20, choices=DataType.choices)

    def __str__(self) -> str:
        return self.name


class CustomFieldInstance(models.Model):
    """The value of one custom field on one document, in its type's column."""

    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="custom_fields"
    )
    field = models.ForeignKey(CustomField, on_delete=models.PROTECT)
    # NULL, as the other columns, where the value is of another type.
    value_text = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    value_bool = models.BooleanField(null=True, blank=True)
    value_int = models.IntegerField(null=True, blank=True)
    value_list = models.JSONField(null=True, blank=True)

    class Meta:
        unique_together = (("document", "field"),)

    COLUMNS: dict[str, str] = {
        CustomField.DataType.STRING: "value_text",
        CustomField.DataType.BOOLEAN: "value_bool",
        CustomField.DataType.INTEGER: "value_int",
        CustomField.DataType.MULTISELECT: "value_list",
    }

    def __str__(self) -> str:
        return f"{self.field}={self.value}"

    @property
    def value(self) -> Any:
        return getattr(self, self.COLUMNS[self.field.data_type])

    @value.setter
    def value(self, value: Any) -> None:
        setattr(self, self.COLUMNS[self.field.data_type], value)
