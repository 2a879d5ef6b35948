"""A translation platform's projects and their translations.

Every rule the database enforces is here: a unique slug, NOT NULL columns,
a foreign key (a parent project, kept by the database only), a check
constraint and a unique constraint over two columns.
"""

from __future__ import annotations

from django.db import models

#: How a project writes language codes: 30 styles, more than an error lists.
STYLES = [(f"style_{n:02d}", f"Style {n}") for n in range(30)]


class Project(models.Model):
    slug = models.SlugField(unique=True)
    language_code_style = models.CharField(
        max_length=20, choices=STYLES, blank=True, default=""
    )
    # The database alone keeps it: deleting a parent with children fails.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.DO_NOTHING
    )

    def __str__(self) -> str:
        return self.slug


class Translation(models.Model):
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="translations"
    )
    language_code = models.CharField(max_length=20)
    progress = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "language_code"], name="platform_one_per_language"
            ),
            models.CheckConstraint(
                condition=models.Q(progress__lte=100), name="platform_progress_le_100"
            ),
        ]

    def __str__(self) -> str:
        return self.language_code
