"""300 generated models with the field mix of a real API, and relations.

Model ``Thing<i>`` (``Thing000`` ... ``Thing299``) has a unique name, an
integer with a default, a choice field, a blank text field, a decimal, a
boolean, a creation timestamp and a nullable foreign key to the previous model
(``Thing000``'s points at itself); every tenth model from ``Thing010`` on also
has a many-to-many to the model seven places before it.

The models are unmanaged and declare no default permissions: no tables and
no permission rows are created for them, so installing the app costs the test
database setup only 300 content types. Nothing that uses them may query them.
"""

from __future__ import annotations

from django.db import models

__all__ = ["SCALE_MODELS", "SCALE_SIZE", "STATUS_CHOICES"]

#: How many models the app defines.
SCALE_SIZE = 300

#: The choices of every model's ``status`` field.
STATUS_CHOICES = [
    ("draft", "Draft"),
    ("active", "Active"),
    ("retired", "Retired"),
]


def _make_model(index: int, previous: str) -> type[models.Model]:
    name = f"Thing{index:03d}"
    attrs: dict[str, object] = {
        "__module__": __name__,
        "__doc__": f"Generated scale model number {index}.",
        "name": models.CharField(max_length=100, unique=True),
        "quantity": models.IntegerField(default=0),
        "status": models.CharField(
            max_length=10, choices=STATUS_CHOICES, default="draft"
        ),
        "notes": models.TextField(blank=True),
        "price": models.DecimalField(
            max_digits=10, decimal_places=2, null=True, blank=True
        ),
        "active": models.BooleanField(default=True),
        "created": models.DateTimeField(auto_now_add=True),
        "parent": models.ForeignKey(
            previous,
            null=True,
            blank=True,
            on_delete=models.SET_NULL,
            related_name=f"children_{index:03d}",
        ),
        "Meta": type(
            "Meta",
            (),
            {
                "app_label": "scaleapp",
                "managed": False,
                "default_permissions": (),
                "verbose_name": f"thing {index:03d}",
                "verbose_name_plural": f"things {index:03d}",
            },
        ),
        "__str__": lambda self: str(self.name),
    }
    if index and index % 10 == 0:
        attrs["tags"] = models.ManyToManyField(
            f"scaleapp.Thing{index - 7:03d}",
            blank=True,
            related_name=f"tagged_by_{index:03d}",
        )
    return type(name, (models.Model,), attrs)


def _make_models() -> list[type[models.Model]]:
    made = []
    for index in range(SCALE_SIZE):
        previous = f"scaleapp.Thing{max(index - 1, 0):03d}"
        made.append(_make_model(index, previous))
    return made


#: Every generated model, in index order.
SCALE_MODELS: list[type[models.Model]] = _make_models()
globals().update({model.__name__: model for model in SCALE_MODELS})
