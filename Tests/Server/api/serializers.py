from rest_framework import serializers as drf_serializers
from rest_framework_json_api import serializers
from rest_framework_json_api.relations import ResourceRelatedField

from api.models import Article, Comment, Person, Tag


def rel(resource, **kwargs):
    """A relationship whose links.self/related point at /<resource>/<pk>/relationships/<name>
    and /<resource>/<pk>/<name>."""
    return ResourceRelatedField(
        self_link_view_name=f"{resource}-relationships",
        related_link_view_name=f"{resource}-related",
        **kwargs,
    )


class PersonSerializer(serializers.ModelSerializer):
    url = drf_serializers.HyperlinkedIdentityField(view_name="person-detail")
    articles = rel("person", many=True, read_only=True)

    included_serializers = {"articles": "api.serializers.ArticleSerializer"}

    class Meta:
        model = Person
        fields = ("url", "name", "email", "articles")

    class JSONAPIMeta:
        resource_name = "people"


class TagSerializer(serializers.ModelSerializer):
    """Tags accept a client-generated id on POST (JSON:API 1.1, "Client-Generated IDs"): a positive integer in the
    resource object's `id`; TagViewSet answers 409 when a tag has it already."""

    url = drf_serializers.HyperlinkedIdentityField(view_name="tag-detail")
    id = drf_serializers.IntegerField(required=False, min_value=1, max_value=2**53)

    class Meta:
        model = Tag
        fields = ("id", "url", "name")

    class JSONAPIMeta:
        resource_name = "tags"


class ArticleSerializer(serializers.ModelSerializer):
    url = drf_serializers.HyperlinkedIdentityField(view_name="article-detail")
    author = rel("article", queryset=Person.objects, required=False, allow_null=True)
    tags = rel("article", queryset=Tag.objects, many=True, required=False)
    comments = rel("article", many=True, read_only=True)

    included_serializers = {
        "author": "api.serializers.PersonSerializer",
        "comments": "api.serializers.CommentSerializer",
        "tags": "api.serializers.TagSerializer",
    }

    class Meta:
        model = Article
        fields = ("url", "title", "body", "created", "author", "tags", "comments")

    class JSONAPIMeta:
        resource_name = "articles"


class CommentSerializer(serializers.ModelSerializer):
    url = drf_serializers.HyperlinkedIdentityField(view_name="comment-detail")
    article = rel("comment", queryset=Article.objects)
    author = rel("comment", queryset=Person.objects, required=False, allow_null=True)

    included_serializers = {
        "article": "api.serializers.ArticleSerializer",
        "author": "api.serializers.PersonSerializer",
    }

    class Meta:
        model = Comment
        fields = ("url", "body", "article", "author")

    class JSONAPIMeta:
        resource_name = "comments"


class CursorProfileArticleSerializer(ArticleSerializer):
    """Adds meta.page.cursor to each resource object (cursor pagination profile)."""

    page = drf_serializers.SerializerMethodField()

    class Meta(ArticleSerializer.Meta):
        fields = ArticleSerializer.Meta.fields + ("page",)
        meta_fields = ("page",)

    @property
    def _readable_fields(self):
        fields = list(super()._readable_fields)
        page_field = self.fields.get("page")
        if page_field is not None and not any(f.field_name == "page" for f in fields):
            fields.append(page_field)
        return fields

    def get_page(self, obj):
        view = self.context.get("view")
        paginator = getattr(view, "paginator", None)
        if paginator is None or not hasattr(paginator, "cursor_for"):
            return None
        return {"cursor": paginator.cursor_for(obj)}


class MeSerializer(PersonSerializer):
    def get_root_meta(self, resource, many):
        request = self.context["request"]
        scheme = request.headers.get("Authorization", "").split(" ", 1)[0]
        return {"authorization": scheme}
