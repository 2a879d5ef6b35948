"""Bulk update and bulk delete on a viewset's list route.

``PATCH``/``PUT`` take a list of objects, each the ``id`` of a row and the
fields to set; ``DELETE`` takes a list of ``{"id": N}``. The rows come from
the view's queryset (ids it does not hold are skipped), and each is saved or
deleted through the view's own serializer and hooks, all in one transaction.
Mixed into a ``GenericViewSet``, whose methods they call.
"""

from __future__ import annotations

from typing import Any

from django.db import router, transaction
from django.db.models import QuerySet
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tests.hosts.bulk.serializers import BulkOperationSerializer


class BulkUpdateModelMixin:
    """``bulk_update`` (PUT) and ``bulk_partial_update`` (PATCH) of many rows."""

    def get_bulk_update_queryset(self) -> QuerySet[Any]:
        view: Any = self
        return view.get_queryset()  # type: ignore[no-any-return]

    def bulk_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        view: Any = self
        partial = kwargs.pop("partial", False)
        ids = BulkOperationSerializer(data=request.data, many=True)
        ids.is_valid(raise_exception=True)
        rows = self.get_bulk_update_queryset().filter(
            pk__in=[item["id"] for item in ids.validated_data]
        )
        sent: list[dict[str, Any]] = request.data  # type: ignore[assignment]
        changes = {item.pop("id"): item for item in sent}
        updated = self.perform_bulk_update(rows, changes, partial=partial)
        queryset = view.get_queryset().filter(pk__in=updated)
        data = view.get_serializer(queryset, many=True).data
        return Response(data, status=status.HTTP_200_OK)

    def perform_bulk_update(
        self, rows: QuerySet[Any], changes: dict[Any, Any], partial: bool
    ) -> list[Any]:
        view: Any = self
        updated = []
        with transaction.atomic(using=router.db_for_write(rows.model)):
            for row in rows:
                data = changes.get(row.pk)
                serializer = view.get_serializer(row, data=data, partial=partial)
                serializer.is_valid(raise_exception=True)
                view.perform_update(serializer)
                updated.append(row.pk)
        return updated

    def bulk_partial_update(
        self, request: Request, *args: Any, **kwargs: Any
    ) -> Response:
        kwargs["partial"] = True
        return self.bulk_update(request, *args, **kwargs)


class BulkDestroyModelMixin:
    """``bulk_destroy`` (DELETE) of many rows."""

    def get_bulk_destroy_queryset(self) -> QuerySet[Any]:
        view: Any = self
        return view.get_queryset()  # type: ignore[no-any-return]

    def bulk_destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        ids = BulkOperationSerializer(data=request.data, many=True)
        ids.is_valid(raise_exception=True)
        rows = self.get_bulk_destroy_queryset().filter(
            pk__in=[item["id"] for item in ids.validated_data]
        )
        self.perform_bulk_destroy(rows)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def perform_bulk_destroy(self, rows: QuerySet[Any]) -> None:
        view: Any = self
        with transaction.atomic(using=router.db_for_write(rows.model)):
            for row in rows:
                view.perform_destroy(row)
