from django.db.models import Manager
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django_filters import rest_framework as df
from rest_framework import generics
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework_json_api import views
from rest_framework_json_api.pagination import (
    JsonApiLimitOffsetPagination,
    JsonApiPageNumberPagination,
)

from api.exceptions import JSONAPI_MEDIA_TYPE, JsonApiErrors
from api.models import SEED_ARTICLE_COUNT, Article, Comment, Person, Tag
from api.pagination import CursorProfilePagination, JsonApiCursorPagination
from api.serializers import (
    ArticleSerializer,
    CommentSerializer,
    CursorProfileArticleSerializer,
    MeSerializer,
    PersonSerializer,
    TagSerializer,
)

BEARER_TOKEN = "secret-token"
# The person each accepted bearer token signs in as, on `/me`.
BEARER_TOKENS = {BEARER_TOKEN: 1, "other-token": 2}


# ---------------------------------------------------------------- filters
class NumberInFilter(df.BaseInFilter, df.NumberFilter):
    pass


class ArticleFilter(df.FilterSet):
    author = df.NumberFilter(field_name="author_id")
    author__in = NumberInFilter(field_name="author_id", lookup_expr="in")
    id__in = NumberInFilter(field_name="id", lookup_expr="in")
    tags = df.NumberFilter(field_name="tags__id")

    class Meta:
        model = Article
        fields = {
            "id": ["exact"],
            "title": ["exact", "icontains", "startswith"],
            "created": ["exact", "gt", "gte", "lt", "lte"],
        }


class CommentFilter(df.FilterSet):
    article = df.NumberFilter(field_name="article_id")
    author = df.NumberFilter(field_name="author_id")

    class Meta:
        model = Comment
        fields = {"body": ["exact", "icontains"]}


# ---------------------------------------------------------------- resources
class ArticleViewSet(views.ModelViewSet):
    queryset = Article.objects.all()
    serializer_class = ArticleSerializer
    pagination_class = JsonApiPageNumberPagination
    filterset_class = ArticleFilter
    ordering_fields = ("id", "title", "created")
    ordering = ("id",)
    select_for_includes = {"author": ["author"]}
    prefetch_for_includes = {
        "__all__": ["tags", "comments"],
        "comments.author": ["comments__author"],
    }


class PersonViewSet(views.ModelViewSet):
    queryset = Person.objects.all()
    serializer_class = PersonSerializer
    filterset_fields = {"name": ["exact", "icontains"], "email": ["exact", "icontains"]}
    ordering_fields = ("id", "name", "email")
    ordering = ("id",)
    prefetch_for_includes = {"__all__": ["articles"]}


class CommentViewSet(views.ModelViewSet):
    queryset = Comment.objects.all()
    serializer_class = CommentSerializer
    filterset_class = CommentFilter
    ordering_fields = ("id", "body")
    ordering = ("id",)


class TagViewSet(views.ModelViewSet):
    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    filterset_fields = {"name": ["exact", "icontains"]}
    ordering_fields = ("id", "name")
    ordering = ("id",)

    def create(self, request, *args, **kwargs):
        # A client-generated id that exists already: 409 Conflict, as the specification requires.
        given = request.data.get("id") if isinstance(request.data, dict) else None
        if given is not None and str(given).isdigit() and Tag.objects.filter(pk=int(given)).exists():
            raise JsonApiErrors(409, [{"status": "409", "title": "Conflict", "detail": f"tags {given} exists already."}])
        return super().create(request, *args, **kwargs)


# ---------------------------------------------------------------- read-only pagination variants
class SeededArticles(views.ReadOnlyModelViewSet):
    queryset = Article.objects.filter(id__lte=SEED_ARTICLE_COUNT)
    serializer_class = ArticleSerializer
    filterset_class = ArticleFilter
    ordering_fields = ("id", "title", "created")
    ordering = ("id",)
    http_method_names = ["get", "head", "options"]
    prefetch_for_includes = {"__all__": ["tags", "comments"]}


class PagedArticleViewSet(SeededArticles):
    pagination_class = JsonApiPageNumberPagination


class OffsetArticleViewSet(SeededArticles):
    pagination_class = JsonApiLimitOffsetPagination


class CursorArticleViewSet(SeededArticles):
    pagination_class = JsonApiCursorPagination
    ordering = ("created", "id")


class CursorProfileArticleViewSet(SeededArticles):
    pagination_class = CursorProfilePagination
    serializer_class = CursorProfileArticleSerializer


# ---------------------------------------------------------------- relationship views
class RelationshipView(views.RelationshipView):
    """DRF-JSONAPI's RelationshipView with:
    - links.related reversed with the full URL kwargs (pk + related_field),
    - to-one relationships that are null (GET/PATCH null and PATCH from null),
    - configurable read-only / non-replaceable relationships.
    """

    read_only_relationships = ()
    no_full_replacement = ()

    def get_links(self):
        links = {}
        self_link = self.get_url("self", self.self_link_view_name, self.kwargs, self.request)
        related = self.get_url("related", self.related_link_view_name, self.kwargs, self.request)
        if self_link:
            links["self"] = self_link
        if related:
            links["related"] = related
        return links

    def _model_field(self):
        return self.get_queryset().model._meta.get_field(self.get_related_field_name())

    def _is_to_one(self):
        field = self._model_field()
        return field.many_to_one or field.one_to_one

    def get_resource_name(self):
        if not hasattr(self, "_resource_name"):
            from rest_framework_json_api.utils import get_resource_type_from_model

            self._resource_name = get_resource_type_from_model(self._model_field().related_model)
        return self._resource_name

    resource_name = property(get_resource_name, views.RelationshipView.set_resource_name)

    def _check_writable(self, request):
        name = self.get_related_field_name()
        if name in self.read_only_relationships:
            raise PermissionDenied(f"The {name} relationship cannot be modified here.")
        if request.method == "PATCH" and name in self.no_full_replacement:
            raise PermissionDenied(f"Full replacement of the {name} relationship is not allowed.")

    def get(self, request, *args, **kwargs):
        instance = self.get_related_instance()
        if instance is None:
            return Response(None)
        return super().get(request, *args, **kwargs)

    def patch(self, request, *args, **kwargs):
        self._check_writable(request)
        if not self._is_to_one():
            return super().patch(request, *args, **kwargs)
        parent = self.get_object()
        field = self._model_field()
        if request.data is None:
            if not field.null:
                raise ValidationError({"non_field_errors": [f"The {field.name} relationship cannot be null."]})
            setattr(parent, field.name, None)
            parent.save()
            return Response(None)
        if isinstance(request.data, list):
            raise ValidationError({"non_field_errors": ["A to-one relationship needs a single resource identifier or null."]})
        serializer = self.get_serializer(data=request.data, model_class=field.related_model)
        serializer.is_valid(raise_exception=True)
        setattr(parent, field.name, serializer.validated_data)
        parent.save()
        return Response(self._instantiate_serializer(getattr(parent, field.name)).data)

    def post(self, request, *args, **kwargs):
        self._check_writable(request)
        return super().post(request, *args, **kwargs)

    def delete(self, request, *args, **kwargs):
        self._check_writable(request)
        return super().delete(request, *args, **kwargs)

    def get_related_instance(self):
        try:
            return getattr(self.get_object(), self.get_related_field_name())
        except AttributeError:
            raise NotFound
        except Exception as exc:  # RelatedObjectDoesNotExist for a non-null to-one
            if exc.__class__.__name__ == "RelatedObjectDoesNotExist":
                return None
            raise


class ArticleRelationshipView(RelationshipView):
    queryset = Article.objects.all()
    self_link_view_name = "article-relationships"
    related_link_view_name = "article-related"
    no_full_replacement = ("comments",)


class CommentRelationshipView(RelationshipView):
    queryset = Comment.objects.all()
    self_link_view_name = "comment-relationships"
    related_link_view_name = "comment-related"


class PersonRelationshipView(RelationshipView):
    queryset = Person.objects.all()
    self_link_view_name = "person-relationships"
    related_link_view_name = "person-related"


# ---------------------------------------------------------------- /me
class MeView(generics.RetrieveAPIView):
    serializer_class = MeSerializer
    resource_name = "people"

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme != "Bearer" or token not in BEARER_TOKENS:
            raise JsonApiErrors(
                401,
                [{
                    "status": "401",
                    "code": "unauthorized",
                    "title": "Unauthorized",
                    "detail": "A valid bearer token is required.",
                }],
                headers={"WWW-Authenticate": 'Bearer realm="jsonapi-test-server"'},
            )

    def get_object(self):
        pk = BEARER_TOKENS[self.request.headers["Authorization"].partition(" ")[2]]
        try:
            return Person.objects.get(pk=pk)
        except Person.DoesNotExist:
            raise NotFound(f"Person {pk} does not exist.")


# ---------------------------------------------------------------- plain Django views
def _meta_document(meta, status=200):
    return JsonResponse({"meta": meta}, status=status, content_type=JSONAPI_MEDIA_TYPE)


@csrf_exempt
def echo_headers(request):
    headers = {key.lower(): value for key, value in request.headers.items()}
    meta = {
        "headers": headers,
        "method": request.method,
        "path": request.path,
        "query": request.META.get("QUERY_STRING", ""),
        "body": request.body.decode("utf-8", errors="replace"),
    }
    return _meta_document(meta)


@csrf_exempt
def note(request, pk):
    if request.method != "DELETE":
        response = JsonResponse(
            {"errors": [{"status": "405", "title": "Method Not Allowed",
                         "detail": f'Method "{request.method}" not allowed.', "code": "method_not_allowed"}]},
            status=405, content_type=JSONAPI_MEDIA_TYPE,
        )
        response["Allow"] = "DELETE"
        return response
    return _meta_document({"deleted": str(pk)})


# ---------------------------------------------------------------- a large synthetic collection
ITEM_COUNT = 10_000


def items(request):
    """`GET /items`: 10,000 generated resources (no database), page-number paginated (`page[size]` up to 1,000),
    for walks that must hold a client's memory bounds."""
    from urllib.parse import urlencode

    try:
        number = max(int(request.GET.get("page[number]", "1")), 1)
        size = min(max(int(request.GET.get("page[size]", "100")), 1), 1000)
    except ValueError:
        return JsonResponse({"errors": [{"status": "400", "title": "Invalid page"}]}, status=400,
                            content_type=JSONAPI_MEDIA_TYPE)
    last = (ITEM_COUNT + size - 1) // size
    base = request.build_absolute_uri(request.path)

    def page(n):
        return base + "?" + urlencode({"page[number]": n, "page[size]": size})

    start = (number - 1) * size
    data = [{"type": "items", "id": str(n), "attributes": {"name": f"item-{n}"}}
            for n in range(start + 1, min(start + size, ITEM_COUNT) + 1)]
    links = {"self": page(number), "first": page(1), "last": page(last),
             "next": page(number + 1) if number < last else None,
             "prev": page(number - 1) if number > 1 else None}
    return JsonResponse({"data": data, "links": links, "meta": {"count": ITEM_COUNT}},
                        content_type=JSONAPI_MEDIA_TYPE)
