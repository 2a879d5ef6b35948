"""Redaction: a host's messages with no fragment of a caller's value left.

Reads DRF's error shape, drf-standardized-errors' and RFC 9457 problem
details. :class:`Redactor` replaces every part of a message that came from
the call's values by ``<value>``, and keeps the words the message's author
could have written without seeing them (docs/errors.md, "Redaction").
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from django.core import validators
from django.db.models import fields as model_fields
from django.forms import fields as form_fields
from django.forms import models as form_models
from django.utils import translation
from django.utils.functional import Promise
from rest_framework import exceptions, relations, serializers
from rest_framework import validators as drf_validators

from frisian_mcp.exceptions import plain_name
from frisian_mcp.types import FieldError

__all__ = ["Redactor", "field_errors", "host_detail"]

#: A message as the host wrote it -> the same with the caller's values out.
Redact = Callable[[str], str]

_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s")
_HOST_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_DOTTED = re.compile(r"[\w.\[\]-]{1,128}")
#: Longest host text kept; longer text is cut before it is redacted.
_MAX_TEXT = 500
#: A format placeholder: ``{name}``, ``{0!r}``, ``%s``, ``%(name)d``.
_FORMAT = re.compile(r"\{[^{}]*\}|%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]")
#: Packages whose messages' words are known already (:func:`_stock_words`).
_STOCK = frozenset({"django", "rest_framework", "django_filters", "frisian_mcp"})
_STOCK |= {"builtins", "typing", "collections", "enum", "abc"}
_HOST_CLASSES = ("serializer_class", "filterset_class")
_PLACEHOLDER = "<value>"
# DRF error codes whose stock messages quote the submitted value.
_REPLACED = {
    "invalid_choice": "is not one of the allowed choices",
    "does_not_exist": "refers to an object that does not exist or is not visible to you",
    "incorrect_type": "is not in a form this reference accepts (its description lists them)",
    "no_match": "is not a link to an object of the right kind",
    "incorrect_match": "is not a link to an object of the right kind",
    "not_a_list": "must be a list",
    "not_a_dict": "must be an object",
}
_UNREAD = (
    "the API rejected the data in a form frisian_mcp cannot read; the same "
    "request over REST shows why"
)


class Redactor:
    """Takes every fragment of the call's values out of a host's message.

    The rule is docs/errors.md's "Redaction": a word that came from a sent
    value, and the caller's words joined to it, become ``<value>``; words of
    the tool's schema, of stock messages and of the host's own templates
    (``host``: the view whose code wrote the message) stay.
    """

    def __init__(
        self, sent: Any, schema: Mapping[str, Any] | None = None, host: Any = None
    ) -> None:
        self._texts = sorted(set(_texts(sent)), key=len, reverse=True)
        self._haystack = "\x00".join(self._texts).casefold()
        self._schema = schema or {}
        self._host = host
        self._marks: dict[str, int] = {}

    @functools.cached_property
    def _whole(self) -> frozenset[str]:
        return frozenset(text.casefold() for text in self._texts)

    @functools.cached_property
    def _sent_words(self) -> frozenset[str]:
        return frozenset(_WORD.findall(self._haystack))

    @functools.cached_property
    def _own_words(self) -> frozenset[str]:
        """Words the caller sent that no schema or stock message has."""
        return self._sent_words - self._known

    @functools.cached_property
    def _own_haystack(self) -> str:
        return "\x00".join(self._own_words)

    @functools.cached_property
    def _template(self) -> frozenset[tuple[str, str, str]]:
        """Neighbouring words of the host's own message templates."""
        language, modules = translation.get_language(), _modules_of(self._host)
        pairs = frozenset[tuple[str, str, str]]()
        return pairs.union(*(_module_pairs(name, language) for name in modules))

    @functools.cached_property
    def _known(self) -> frozenset[str]:
        stock = _stock_words(translation.get_language())
        return stock | _schema_words(self._schema) | {"value", "key"}

    def __call__(self, text: str) -> str:
        """``text`` with every fragment of the call's values as ``<value>``."""
        if len(text) > _MAX_TEXT:
            text = text[:_MAX_TEXT] + "…"
        if not self._haystack:
            return text
        text = self._whole_values(text)
        tokens = list(_WORD.finditer(text))
        marks = [self._mark(token.group()) for token in tokens]
        gaps = [text[a.end() : b.start()] for a, b in itertools.pairwise(tokens)]
        for i, gap in enumerate(gaps if any(marks) else ()):
            # Two words where the host's own template put them: its words.
            if (tokens[i].group(), gap, tokens[i + 1].group()) in self._template:
                marks[i] = marks[i + 1] = 0
        joined = [not _SPACE.search(gap) for gap in gaps]
        hidden = [mark == 2 for mark in marks]
        for order in (range(len(joined)), reversed(range(len(joined)))):
            for i in order:  # the caller's words joined to a hidden one
                pair = joined[i] and marks[i] and marks[i + 1]
                if pair and (hidden[i] or hidden[i + 1]):
                    hidden[i] = hidden[i + 1] = True
        parts, end = [], 0
        for i, token in enumerate(tokens):
            if not hidden[i]:
                continue
            if i and hidden[i - 1] and (joined[i - 1] or gaps[i - 1].isspace()):
                end = token.end()  # the same fragment goes on
                continue
            parts.append(text[end : token.start()] + _PLACEHOLDER)
            end = token.end()
        return "".join(parts) + text[end:] if parts else text

    def _mark(self, word: str) -> int:
        """2: the caller's, to hide; 1: in a sent value, hidden with one; 0."""
        found = self._marks.get(word)
        if found is None:
            low = word.casefold()
            sent = low in self._haystack
            if low in self._known or (low.isdigit() and len(low) < 3):
                found = int(sent)
            elif (
                (len(low) >= 4 and sent)
                or (len(low) >= 2 and low in self._whole)
                or (len(low) == 3 and low in self._sent_words)
                or any(w in self._own_words for w in _inner(low))
                or any(
                    low[i : i + 6] in self._own_haystack for i in range(len(low) - 5)
                )
            ):
                found = 2
            else:
                found = int(sent)
            self._marks[word] = found
        return found

    def _whole_values(self, text: str) -> str:
        """Values without a word of their own (``a-b-c``, symbols), whole."""
        for value in self._wordless:
            if value in text:
                text = text.replace(value, _PLACEHOLDER)
        return text

    @functools.cached_property
    def _wordless(self) -> list[str]:
        return [
            value
            for value in self._texts
            if len(value) >= 3 and all(len(w) < 3 for w in _WORD.findall(value))
        ]


def _inner(word: str) -> Iterator[str]:
    """Every part of ``word`` of 4 to 64 characters shorter than itself."""
    for start in range(len(word) - 3):
        for end in range(start + 4, min(len(word), start + 64) + 1):
            if end - start < len(word):
                yield word[start:end]


def _texts(sent: Any) -> Iterator[str]:
    """Every scalar the call sent, and every key that is not a plain name."""
    if isinstance(sent, Mapping):
        for key, value in sent.items():
            if not plain_name(key):
                yield str(key)
            yield from _texts(value)
    elif isinstance(sent, list | tuple):
        for value in sent:
            yield from _texts(value)
    elif sent is not None and not isinstance(sent, bool) and str(sent):
        yield str(sent)


@functools.lru_cache(maxsize=16)
def _stock_words(language: str | None) -> frozenset[str]:
    """The words of DRF's, Django's and django-filter's stock messages."""
    modules = [validators, model_fields, form_fields, form_models]
    modules += [exceptions, relations, serializers, drf_validators]
    try:
        from django_filters import fields as filter_fields
    except ImportError:  # django-filter is optional
        pass
    else:
        modules.append(filter_fields)
    texts = [
        str(text)
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type)
        for text in _messages_of(cls)
    ]
    return frozenset(word.casefold() for text in texts for word in _WORD.findall(text))


def _messages_of(cls: type) -> Iterator[Any]:
    for klass in cls.__mro__:
        yield from (vars(klass).get("default_error_messages") or {}).values()
        for name in ("message", "default_detail"):
            text = vars(klass).get(name)
            if isinstance(text, str | Promise):
                yield text


def _modules_of(view: Any) -> list[str]:
    """The modules of a view, its serializer, filter set and model, and of
    their bases."""
    model = getattr(getattr(view, "queryset", None), "model", None)
    found = [type(view), model, *(getattr(view, n, None) for n in _HOST_CLASSES)]
    names = {c.__module__ for k in found if isinstance(k, type) for c in k.__mro__}
    return sorted(names)


@functools.lru_cache(maxsize=512)
def _module_pairs(name: str, language: str | None) -> frozenset[tuple[str, str, str]]:
    """Each two neighbouring words, and what is between them, of every
    string literal of a host module: in its functions' code, in its classes,
    and in the functions and classes it imports from the host."""
    module = sys.modules.get(name)
    host = module is not None and _host(name)
    found = vars(module).items() if host else ()
    stack = [(value, 0) for key, value in found if key != "__builtins__"]
    pairs, seen = set[tuple[str, str, str]](), set[int]()
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > 3:
            continue
        seen.add(id(node))
        if isinstance(node, str | Promise):
            pairs.update(_neighbours(str(node)))
        elif isinstance(node, types.CodeType):
            stack += [(const, depth) for const in node.co_consts]
        elif isinstance(node, types.FunctionType) and _host(node.__module__):
            stack.append((node.__code__, depth))
        elif isinstance(node, type) and _host(node.__module__):
            stack += [(value, depth + 1) for value in vars(node).values()]
        elif isinstance(node, staticmethod | classmethod | property):
            inner = (getattr(node, a, None) for a in ("__func__", "fget", "fset"))
            stack += [(value, depth) for value in inner if value is not None]
        elif isinstance(node, dict | list | tuple | set | frozenset):
            items = node.values() if isinstance(node, dict) else node
            stack += [(value, depth + 1) for value in items]
    return frozenset(pairs)


def _host(module: str | None) -> bool:
    """Whether a module is the host's: not Django's, DRF's, ours or Python's."""
    return str(module).partition(".")[0] not in _STOCK


def _neighbours(text: str) -> Iterator[tuple[str, str, str]]:
    """Each two words of ``text`` and what is between them (three characters
    at most); a placeholder (``{name}``, ``%s``) parts them."""
    for piece in _FORMAT.split(text):
        words = list(_WORD.finditer(piece))
        for a, b in itertools.pairwise(words):
            if len(gap := piece[a.end() : b.start()]) <= 3:
                yield a.group(), gap, b.group()


def _schema_words(schema: Any) -> frozenset[str]:
    """Every name, choice, limit and word of a tool's inputSchema."""
    words: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            words.update(str(k).casefold() for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str | int | float) and not isinstance(node, bool):
            words.update(_WORD.findall(str(node).casefold()))
    return frozenset(words)


def field_errors(data: Any, redact: Redact) -> list[FieldError]:
    """A 400's error data as ``[{"field", "code", "message"}]``.

    Reads DRF's own shape, drf-standardized-errors' (``errors`` of ``code``,
    ``detail``, ``attr``) and RFC 9457 problem details; anything else gets
    one value-free entry rather than a guess. Every message and field path
    goes through ``redact``.
    """
    if isinstance(data, Mapping):
        listed = data.get("errors", data.get("invalid_params"))
        listed = listed if isinstance(listed, list) else []
        if listed and all(isinstance(e, Mapping) for e in listed):
            return [_listed(entry, redact) for entry in listed]
        if "status" in data and ("title" in data or "type" in data):
            detail = host_detail(data, redact) or "the request is invalid"
            return [{"field": "non_field_errors", "code": "invalid", "message": detail}]
    found = _drf_errors(data, redact, "")
    if found is not None:
        return found
    return [_entry("", _UNREAD, str)]


def _drf_errors(data: Any, redact: Redact, prefix: str) -> list[FieldError] | None:
    """DRF's error shape (text leaves in lists and dicts) as entries, else None."""
    if isinstance(data, str):
        return [_entry(prefix, data, redact)]
    if isinstance(data, Mapping):
        parts = [
            (f"{prefix}[{key}]", value)
            if isinstance(key, int)  # ListSerializer errors, by item index
            else (f"{prefix}.{_host_name(key) or '<key>'}".lstrip("."), value)
            for key, value in data.items()
        ]
    elif isinstance(data, list | tuple):
        if all(isinstance(item, str) for item in data):
            parts = [(prefix, item) for item in data]
        else:  # errors per item; an item without errors is empty
            parts = [(f"{prefix}[{i}]", v) for i, v in enumerate(data) if v != ""]
    else:
        return None
    errors: list[FieldError] = []
    for path, value in parts:
        found = _drf_errors(value, redact, path)
        if found is None:
            return None
        errors.extend(found)
    return errors


def _host_name(key: object) -> str | None:
    """A name the host's error data uses, if it is an identifier."""
    return key if isinstance(key, str) and _HOST_NAME.fullmatch(key) else None


def _listed(entry: Mapping[str, Any], redact: Redact) -> FieldError:
    """One entry of drf-standardized-errors' or RFC 9457's ``invalid_params``."""
    attr = entry.get("attr", entry.get("name"))
    field = _host_name(attr)
    if field is None and isinstance(attr, str) and _DOTTED.fullmatch(attr):
        field = attr  # a dotted path to a nested field, e.g. "items.0.name"
    code = entry.get("code")
    code = code if isinstance(code, str) and _host_name(code) else "invalid"
    detail = entry.get("detail", entry.get("reason"))
    return _entry(field or "", str(detail or "is invalid"), redact, code)


def host_detail(data: Any, redact: Redact) -> str | None:
    """The host's refusal reason (``detail``, a problem's ``title``), redacted."""
    text = data[0] if isinstance(data, list | tuple) and len(data) == 1 else data
    if isinstance(text, Mapping):
        listed = text.get("errors")
        first = listed[0] if isinstance(listed, list) and listed else None
        text = text.get("detail") or text.get("title")
        if text is None and isinstance(first, Mapping):
            text = first.get("detail")
    if not isinstance(text, str) or not text.strip():
        return None
    return redact(text.strip())


def _entry(
    field: str, detail: Any, redact: Redact, code: str | None = None
) -> FieldError:
    code = code or str(getattr(detail, "code", None) or "invalid")
    message = _REPLACED.get(code) or redact(str(detail))
    where = redact(field) if field else "non_field_errors"
    return {"field": where, "code": code, "message": message}
