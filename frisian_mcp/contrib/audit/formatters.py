"""A JSON formatter for audit records: one object per line (docs/audit.md)."""

from __future__ import annotations

import datetime
import json
import logging

__all__ = ["JSONFormatter"]


class JSONFormatter(logging.Formatter):
    """Each record as one line of JSON: time, level, logger, message and the
    record's ``mcp_*`` fields without their prefix, ready for a log stack."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON object on one line."""
        when = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        data: dict[str, object] = {
            "time": when.isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        data.update(
            (key[4:], value)
            for key, value in vars(record).items()
            if key.startswith("mcp_")
        )
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)
