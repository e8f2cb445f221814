"""Paginators beyond DRF-JSONAPI's page-number and limit-offset ones.

All return {"results", "meta", "links"} like DRF-JSONAPI's paginators, which the
JSON:API renderer turns into top-level data/meta/links.
"""

import base64
import binascii
import json

from django.db.models import Q
from rest_framework.pagination import BasePagination, CursorPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from api.exceptions import JsonApiErrors

PROFILE = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination"


class JsonApiCursorPagination(CursorPagination):
    """DRF's CursorPagination with one opaque page[cursor] parameter."""

    cursor_query_param = "page[cursor]"
    page_size_query_param = "page[size]"
    max_page_size = 100
    ordering = ("created", "id")

    def paginate_queryset(self, queryset, request, view=None):
        self.count = queryset.count()
        return super().paginate_queryset(queryset, request, view)

    def get_first_link(self):
        return remove_query_param(self.base_url, self.cursor_query_param)

    def get_paginated_response(self, data):
        return Response(
            {
                "results": data,
                "meta": {"pagination": {"size": self.page_size, "count": self.count}},
                "links": {
                    "first": self.get_first_link(),
                    "next": self.get_next_link(),
                    "prev": self.get_previous_link(),
                },
            }
        )


def _b64encode(obj):
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _b64decode(token):
    padded = token + "=" * (-len(token) % 4)
    return json.loads(base64.urlsafe_b64decode(padded.encode()).decode())


class CursorProfilePagination(BasePagination):
    """The JSON:API "Cursor Pagination" profile (ethanresnick/cursor-pagination).

    page[size], page[after], page[before] (opaque keyset cursors over the current sort
    plus id as tie-breaker). links.prev/links.next are always present (null when there is
    no such page); links.first drops the cursors. meta.page.total is the total count;
    each resource object carries meta.page.cursor.
    """

    size_param = "page[size]"
    after_param = "page[after]"
    before_param = "page[before]"
    default_size = 10
    max_size = 100

    def _error(self, parameter, title, detail, code, type_suffix=None, meta=None):
        error = {"status": "400", "code": code, "title": title, "detail": detail,
                 "source": {"parameter": parameter}}
        if type_suffix:
            error["links"] = {"type": f"{PROFILE}/{type_suffix}"}
        if meta:
            error["meta"] = meta
        return JsonApiErrors(400, [error])

    def _parse_size(self, request):
        raw = request.query_params.get(self.size_param)
        if raw is None:
            return self.default_size
        try:
            size = int(raw)
        except ValueError:
            size = 0
        if size <= 0:
            raise self._error(self.size_param, "Invalid page size",
                              "page[size] must be a positive integer.", "invalid-page-size")
        if size > self.max_size:
            raise self._error(
                self.size_param, "Page size requested is too large.",
                f"You requested a size of {size}, but {self.max_size} is the maximum.",
                "max-size-exceeded", "max-size-exceeded",
                {"page": {"maxSize": self.max_size}},
            )
        return size

    def _ordering(self, queryset):
        ordering = []
        for item in queryset.query.order_by or ("id",):
            desc = item.startswith("-")
            name = item.lstrip("-")
            if name == "pk":
                name = "id"
            ordering.append((name, desc))
        if "id" not in [name for name, _ in ordering]:
            ordering.append(("id", False))
        return ordering

    def _signature(self):
        return ",".join(("-" if desc else "") + name for name, desc in self.ordering)

    def cursor_for(self, obj):
        values = []
        for name, _ in self.ordering:
            value = getattr(obj, name)
            values.append(value.isoformat() if hasattr(value, "isoformat") else value)
        return _b64encode({"s": self._signature(), "v": values})

    def _decode(self, param, token, model):
        try:
            payload = _b64decode(token)
            if payload["s"] != self._signature() or len(payload["v"]) != len(self.ordering):
                raise ValueError("cursor does not match the sort order")
            return [model._meta.get_field(name).to_python(value)
                    for (name, _), value in zip(self.ordering, payload["v"])]
        except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
            raise self._error(param, "Invalid cursor",
                              f"{param} is not a valid cursor for this sort ({exc}).",
                              "invalid-cursor")

    def _keyset(self, values, forward):
        """Q for rows strictly after (forward) / before (not forward) the cursor values."""
        q = None
        for i, (name, desc) in enumerate(self.ordering):
            cond = Q(**{self.ordering[j][0]: values[j] for j in range(i)})
            op = "gt" if desc != forward else "lt"
            cond &= Q(**{f"{name}__{op}": values[i]})
            q = cond if q is None else (q | cond)
        return q

    def _link(self, **params):
        url = self.base_url
        for key, value in params.items():
            url = replace_query_param(url, key, value)
        return url

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.size = self._parse_size(request)
        self.ordering = self._ordering(queryset)
        url = request.build_absolute_uri()
        url = remove_query_param(url, self.after_param)
        self.base_url = remove_query_param(url, self.before_param)
        model = queryset.model

        after_token = request.query_params.get(self.after_param)
        before_token = request.query_params.get(self.before_param)
        after = self._decode(self.after_param, after_token, model) if after_token else None
        before = self._decode(self.before_param, before_token, model) if before_token else None

        self.total = queryset.count()
        self.range_truncated = None
        order_by = [("-" if d else "") + n for n, d in self.ordering]
        reverse_order_by = [("" if d else "-") + n for n, d in self.ordering]
        qs = queryset.order_by(*order_by)

        if before is not None and after is None:
            rows = list(qs.filter(self._keyset(before, False)).order_by(*reverse_order_by)[: self.size + 1])
            has_prev = len(rows) > self.size
            items = rows[: self.size][::-1]
            has_next = bool(items) and qs.filter(self._keyset(self._values(items[-1]), True)).exists()
        else:
            window = qs
            if after is not None:
                window = window.filter(self._keyset(after, True))
            if before is not None:
                window = window.filter(self._keyset(before, False))
            rows = list(window[: self.size + 1])
            items = rows[: self.size]
            if before is not None:
                self.range_truncated = len(rows) > self.size
                has_next = bool(items) and qs.filter(self._keyset(self._values(items[-1]), True)).exists()
            else:
                has_next = len(rows) > self.size
            has_prev = (after is not None or before is not None) and bool(items) and qs.filter(
                self._keyset(self._values(items[0]), False)).exists()

        self.items = items
        self.next_link = self._link(**{self.after_param: self.cursor_for(items[-1])}) if has_next else None
        self.prev_link = self._link(**{self.before_param: self.cursor_for(items[0])}) if has_prev else None
        return items

    def _values(self, obj):
        return [getattr(obj, name) for name, _ in self.ordering]

    def get_paginated_response(self, data):
        page_meta = {"total": self.total}
        if self.range_truncated is not None:
            page_meta["rangeTruncated"] = self.range_truncated
        return Response(
            {
                "results": data,
                "meta": {"page": page_meta},
                "links": {"first": self.base_url, "prev": self.prev_link, "next": self.next_link},
            }
        )
