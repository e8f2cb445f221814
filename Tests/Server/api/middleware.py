"""Caching headers a test chooses, for the client store's integration tests; strictness about unknown members."""

import json

from api.exceptions import error_document


class TestCachingHeaders:
    """On a successful GET, `X-Test-Cache-Control` in the request becomes the response's `Cache-Control`, and
    `X-Test-ETag` its `ETag` (one that does not depend on who asks, as some servers send). It runs inside
    Django's ConditionalGetMiddleware, which then answers a matching `If-None-Match` with a 304 and sends no ETag
    with `no-store`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method != "GET" or response.status_code != 200:
            return response
        if "X-Test-Cache-Control" in request.headers:
            response["Cache-Control"] = request.headers["X-Test-Cache-Control"]
        if "X-Test-ETag" in request.headers:
            response["ETag"] = request.headers["X-Test-ETag"]
        return response


class StrictMembers:
    """With `X-Test-Strict-Members: 1`, a POST or PATCH whose `data` has a member JSON:API's resource object does not
    define for a plain request (`lid`, or any other) is refused with a 422 error document before any view runs, as
    django-ninja-jsonapi (`extra_forbidden`) and Flask-Restless-NG (a 500 there) refuse it. A request applying the
    Atomic Operations extension has no top-level `data`, so it is left alone: `lid` belongs to it there."""

    MEMBERS = {"type", "id", "attributes", "relationships", "links", "meta"}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.headers.get("X-Test-Strict-Members") == "1" and request.method in ("POST", "PATCH"):
            try:
                data = json.loads(request.body or b"null")
            except ValueError:
                data = None
            resource = data.get("data") if isinstance(data, dict) else None
            extra = sorted(set(resource) - self.MEMBERS) if isinstance(resource, dict) else []
            if extra:
                return error_document(
                    422, "Unprocessable Entity",
                    f"Extra inputs are not permitted: data.{extra[0]}", "extra_forbidden")
        return self.get_response(request)
