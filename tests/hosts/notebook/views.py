"""The notebook host's viewsets, behind Django's model permissions."""

from __future__ import annotations

from rest_framework import permissions, serializers, viewsets

from tests.hosts.notebook.models import Note, Notebook


class NotebookSerializer(serializers.ModelSerializer[Notebook]):
    class Meta:
        model = Notebook
        fields = ["id", "name"]


class NoteSerializer(serializers.ModelSerializer[Note]):
    class Meta:
        model = Note
        fields = ["id", "notebook", "title", "kind", "body"]


class NotebookViewSet(viewsets.ModelViewSet[Notebook]):
    """Notebooks. <b onmouseover="window.__pwned = 'docstring'">hover</b>"""

    queryset = Notebook.objects.order_by("pk")
    serializer_class = NotebookSerializer
    permission_classes = [permissions.DjangoModelPermissions]


class NoteViewSet(viewsets.ModelViewSet[Note]):
    """Notes, each in a notebook."""

    queryset = Note.objects.order_by("pk")
    serializer_class = NoteSerializer
    permission_classes = [permissions.DjangoModelPermissions]
