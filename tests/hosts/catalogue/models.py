"""Products, and the features a product's filters grow by."""

from __future__ import annotations

from django.db import models


class Feature(models.Model):
    """A feature products may have: the filter set adds a filter for each."""

    name = models.SlugField(unique=True)

    def __str__(self) -> str:
        return self.name


class Product(models.Model):
    CATEGORIES = (("tools", "Tools"), ("garden", "Garden"), ("kitchen", "Kitchen"))

    name = models.CharField(max_length=100)
    sku = models.CharField(max_length=20, unique=True)
    category = models.CharField(max_length=20, choices=CATEGORIES, default="tools")
    price = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    stock = models.IntegerField(default=0)
    released = models.DateField(null=True, blank=True)
    features = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return self.name
