"""Exception handling: DRF-JSONAPI's handler plus raw error documents and Django-level handlers."""

from django.http import JsonResponse
from rest_framework.response import Response
from rest_framework_json_api.exceptions import exception_handler as jsonapi_exception_handler

JSONAPI_MEDIA_TYPE = "application/vnd.api+json"


class JsonApiErrors(Exception):
    """Raise to answer with exactly these JSON:API error objects (values kept as given)."""

    def __init__(self, status, errors, headers=None):
        super().__init__(status)
        self.status = status
        self.errors = errors
        self.headers = headers or {}


def exception_handler(exc, context):
    if isinstance(exc, JsonApiErrors):
        # The JSON:API renderer renders any 4xx/5xx response as {"errors": data}.
        return Response(exc.errors, status=exc.status, headers=exc.headers)
    return jsonapi_exception_handler(exc, context)


def error_document(status, title, detail, code=None):
    error = {"status": str(status), "title": title, "detail": detail}
    if code:
        error["code"] = code
    return JsonResponse({"errors": [error]}, status=status, content_type=JSONAPI_MEDIA_TYPE)


def handler400(request, exception=None):
    return error_document(400, "Bad Request", "The request could not be understood.", "bad_request")


def handler403(request, exception=None):
    return error_document(403, "Forbidden", "Forbidden.", "forbidden")


def handler404(request, exception=None):
    return error_document(
        404, "Not Found", f"No resource found at {request.path}.", "not_found"
    )


def handler500(request):
    return error_document(500, "Internal Server Error", "Internal server error.", "server_error")
