"""Views that queue tasks while they write, each the way real hosts do."""

from __future__ import annotations

import threading
from typing import Any

from django.db import DatabaseError, close_old_connections, connections, transaction
from django.utils.decorators import method_decorator
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tests.testapp.models import Publisher
from tests.testapp.serializers import PublisherSerializer
from tests.testapp.views import PublisherViewSet

#: What happened during the last request, in order.
EVENTS: list[str] = []


def worker_sees(pk: Any) -> str:
    """What a task worker reading row ``pk`` on its own connection finds now.

    SQLite refuses the read while another connection holds an uncommitted
    write ("blocked"); PostgreSQL reads the last committed state ("misses").
    """
    found: list[str] = []

    def work() -> None:
        try:
            exists = Publisher.objects.filter(pk=pk).exists()
            found.append("sees the row" if exists else "misses the row")
        except DatabaseError:
            found.append("blocked")
        finally:
            connections.close_all()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return found[0]


class QueueingPublisherViewSet(PublisherViewSet):
    """Queues a task right after saving; a worker picks it up at once."""

    def perform_create(self, serializer: serializers.BaseSerializer[Publisher]) -> None:
        publisher = serializer.save()
        EVENTS.append(f"queued: worker {worker_sees(publisher.pk)}")


@method_decorator(transaction.non_atomic_requests, name="dispatch")
class NonAtomicQueueingPublisherViewSet(QueueingPublisherViewSet):
    """The same, opted out of ``ATOMIC_REQUESTS`` as Django documents."""


class OnCommitPublisherViewSet(PublisherViewSet):
    """Queues its task with ``transaction.on_commit``, as Django advises."""

    def perform_create(self, serializer: serializers.BaseSerializer[Publisher]) -> None:
        publisher = serializer.save()

        def queue() -> None:
            EVENTS.append(f"on_commit: worker {worker_sees(publisher.pk)}")

        transaction.on_commit(queue)
        EVENTS.append("saved")


class EagerTaskPublisherViewSet(PublisherViewSet):
    """Runs its task in the request, as a task queue in eager mode does.

    The task commits its own work (a durable block) and, as long-running
    task code does, drops a database connection it considers stale.
    """

    def perform_create(self, serializer: serializers.BaseSerializer[Publisher]) -> None:
        publisher = serializer.save()
        close_old_connections()
        with transaction.atomic(durable=True):
            Publisher.objects.filter(pk=publisher.pk).update(country="NL")
        EVENTS.append("task done")


class SaveThenRaisePublisherViewSet(PublisherViewSet):
    """Writes, then finds a problem and raises (DRF's handler answers 400)."""

    def perform_create(self, serializer: serializers.BaseSerializer[Publisher]) -> None:
        serializer.save()
        raise serializers.ValidationError({"name": ["Refused after saving."]})


class SaveThenAnswerPublisherViewSet(PublisherViewSet):
    """Writes, then answers 400 itself, without an exception."""

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        super().create(request, *args, **kwargs)
        return Response({"name": ["Refused after saving."]}, status=400)


class AuditingPublisherSerializer(PublisherSerializer):
    """Validation that writes an audit row, as some hosts' validators do."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        Publisher.objects.create(name=f"audit {Publisher.objects.count()}")
        return attrs


class AuditingPublisherViewSet(PublisherViewSet):
    """Publishers whose validation writes."""

    serializer_class = AuditingPublisherSerializer
