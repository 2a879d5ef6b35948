"""Tickets with comments, the audit of deleted tickets, and members."""

from __future__ import annotations

from django.db import models


class Ticket(models.Model):
    """A support ticket."""

    title = models.CharField(max_length=100)
    status = models.CharField(
        max_length=10, choices=[("open", "open"), ("closed", "closed")], default="open"
    )
    note = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return self.title


class Comment(models.Model):
    """A comment on a ticket."""

    ticket = models.ForeignKey(
        Ticket, on_delete=models.CASCADE, related_name="comments"
    )
    text = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.text


class Removal(models.Model):
    """Why a ticket was deleted (written by the ticket's ``destroy``)."""

    title = models.CharField(max_length=100)
    reason = models.CharField(max_length=200)

    def __str__(self) -> str:
        return self.title


class Member(models.Model):
    """A member of the helpdesk team."""

    username = models.CharField(max_length=50, unique=True)
    email = models.EmailField(blank=True, default="")
    role = models.CharField(max_length=20, default="agent")
    secret = models.CharField(max_length=50, blank=True, default="")

    def __str__(self) -> str:
        return self.username
