"""Serializers of the glossary host.

A component's ``source_language`` is the language's own serializer, nested:
its ``id``, ``url`` and ``aliases`` are read-only, and the component picks
the language by the ``code`` sent (the nested serializer's other writable
keys are read and ignored, as the host does).
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from tests.hosts.glossary.models import Component, Language


class LanguageSerializer(serializers.ModelSerializer[Language]):
    aliases = serializers.SerializerMethodField()

    class Meta:
        model = Language
        fields = ("id", "code", "name", "direction", "aliases", "url")
        extra_kwargs = {
            "url": {"view_name": "language-detail", "lookup_field": "code"},
            # Nested, the code names an existing language.
            "code": {"validators": []},
            "name": {"required": False},
        }

    def get_aliases(self, obj: Language) -> list[str]:
        return [alias for alias in obj.aliases.split(",") if alias]


class ComponentSerializer(serializers.ModelSerializer[Component]):
    source_language = LanguageSerializer()

    class Meta:
        model = Component
        fields = ("id", "url", "slug", "name", "source_language")
        extra_kwargs = {
            "url": {"view_name": "component-detail", "lookup_field": "slug"}
        }

    def validate_source_language(self, value: dict[str, Any]) -> Language:
        try:
            return Language.objects.get(code=value["code"])
        except Language.DoesNotExist:
            raise serializers.ValidationError("No language has this code.") from None
