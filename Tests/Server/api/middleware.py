"""Caching headers a test chooses, for the client store's integration tests."""


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
