"""The Atomic Operations extension (https://jsonapi.org/ext/atomic) at `/operations`, by drf-json-api-atomic-operations,
and a stand-in for a server without it."""

from collections import defaultdict

from atomic_operations.views import AtomicOperationView

from api.exceptions import error_document
from api.serializers import ArticleSerializer, CommentSerializer, PersonSerializer, TagSerializer

SERIALIZERS = {"articles": ArticleSerializer, "comments": CommentSerializer, "people": PersonSerializer,
               "tags": TagSerializer}


class OperationsView(AtomicOperationView):
    """Adds, updates and removes articles, comments, people and tags, all in one database transaction."""

    serializer_classes = {f"{op}:{resource}": serializer for resource, serializer in SERIALIZERS.items()
                          for op in ("add", "update", "remove")}

    def post(self, request, *args, **kwargs):
        # The package keeps its lid → id map on the class, where every request (and thread) would share it: a lid
        # names a resource within its own request only (the extension's rule), so each request starts a new map.
        self.lid_to_id = defaultdict(dict)
        return super().post(request, *args, **kwargs)

    def handle_sequential(self, serializer, operation_code):
        # The package's own reads the new id from `serializer.data["id"]`, which our serializers do not render
        # (the id is the resource object's, not an attribute): the saved instance's primary key is the id.
        if operation_code == "remove":
            serializer.instance.delete()
            return
        serializer.is_valid(raise_exception=True)
        serializer.save()
        lid = serializer.initial_data.get("lid")
        if operation_code == "add" and lid:
            self.lid_to_id[serializer.initial_data["type"]][lid] = str(serializer.instance.pk)
        if operation_code != "update-relationship":
            self.response_data.append(serializer.data)


def unsupported_extension(request):
    """What a JSON:API server without the extension must answer a request that applies it: 415."""
    return error_document(415, "Unsupported Media Type",
                          "The extension in the request's Content-Type is not supported here.",
                          "unsupported_media_type")
