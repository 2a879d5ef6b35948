"""Serializers of the test app."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import serializers

from tests.testapp.models import Book, Publisher, Shelf, ShelfLabel


class PublisherSerializer(serializers.ModelSerializer[Publisher]):
    """A publisher, whose country check quotes the value (as careless code does)."""

    class Meta:
        model = Publisher
        fields = ("id", "name", "country", "code")

    def validate_country(self, value: str) -> str:
        if value and not value.isupper():
            raise serializers.ValidationError(
                f"{value} is not an upper-case country code."
            )
        return value


class NativePublisherField(serializers.ModelSerializer[Publisher]):
    """A nested publisher that, like NetBox, accepts an id or any field subset."""

    class Meta:
        model = Publisher
        fields = ("id", "name", "country")

    def to_internal_value(self, data: Any) -> Publisher:
        if isinstance(data, dict):
            try:
                return Publisher.objects.get(
                    **{k: v for k, v in data.items() if k in ("id", "name", "country")}
                )
            except (Publisher.DoesNotExist, Publisher.MultipleObjectsReturned):
                raise serializers.ValidationError(
                    "No single publisher matches.", code="does_not_exist"
                ) from None
        try:
            return Publisher.objects.get(pk=int(data))
        except (TypeError, ValueError, Publisher.DoesNotExist):
            raise serializers.ValidationError(
                "No publisher has that id.", code="does_not_exist"
            ) from None


class BookSerializer(serializers.ModelSerializer[Book]):
    """A book, written with a publisher id and a list of sequel ids."""

    summary = serializers.SerializerMethodField()

    class Meta:
        model = Book
        fields: tuple[str, ...] = (
            "id",
            "title",
            "isbn",
            "publisher",
            "genre",
            "price",
            "pages",
            "rating",
            "in_print",
            "published",
            "updated_at",
            "metadata",
            "website",
            "uid",
            "sequels",
            "summary",
        )

    def get_summary(self, obj: Book) -> str:
        return f"{obj.title} ({obj.genre})"


class NativeBookSerializer(BookSerializer):
    """The same book, with the NetBox-style nested publisher."""

    publisher = NativePublisherField(required=False, allow_null=True)


class CheckedPublisherField(serializers.PrimaryKeyRelatedField[Publisher]):
    """A publisher id with a check of its own: a subclass still takes ids."""

    def to_internal_value(self, data: Any) -> Publisher:
        if isinstance(data, dict):
            raise serializers.ValidationError("Send an id.", code="incorrect_type")
        return super().to_internal_value(data)


class CheckedBookSerializer(BookSerializer):
    """The same book, its publisher an id checked by a field subclass."""

    publisher = CheckedPublisherField(
        queryset=Publisher.objects.all(), required=False, allow_null=True
    )


class ShelfSerializer(serializers.ModelSerializer[Shelf]):
    """A shelf whose books are written by ISBN; only books in print may go on it."""

    books = serializers.SlugRelatedField(
        slug_field="isbn",
        queryset=Book.objects.filter(in_print=True),
        many=True,
        required=False,
    )

    class Meta:
        model = Shelf
        fields = ("id", "room", "number", "books")


class ShelfLabelSerializer(serializers.ModelSerializer[ShelfLabel]):
    """A shelf label; its shelf can be looked up by room and number."""

    class Meta:
        model = ShelfLabel
        fields = ("id", "shelf", "text")


class StatsSerializer(serializers.Serializer[dict[str, int]]):
    """Counts of the test app's rows."""

    books = serializers.IntegerField()
    publishers = serializers.IntegerField()


class AccountSerializer(serializers.ModelSerializer[User]):
    """A person's own account: their name and whether they are staff."""

    class Meta:
        model = User
        fields = ("username", "is_staff")
