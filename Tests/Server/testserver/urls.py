from django.urls import path, re_path

from api import operations, views

handler400 = "api.exceptions.handler400"
handler403 = "api.exceptions.handler403"
handler404 = "api.exceptions.handler404"
handler500 = "api.exceptions.handler500"

LIST = {"get": "list", "post": "create"}
DETAIL = {"get": "retrieve", "patch": "partial_update", "delete": "destroy"}
RELATED = {"get": "retrieve_related"}
READ_LIST = {"get": "list"}
READ_DETAIL = {"get": "retrieve"}


def resource(prefix, basename, viewset, relationship_view, relations):
    rel = "|".join(relations)
    routes = [
        path(f"{prefix}", viewset.as_view(LIST), name=f"{basename}-list"),
        path(f"{prefix}/<int:pk>", viewset.as_view(DETAIL), name=f"{basename}-detail"),
    ]
    if relations:
        routes += [
            re_path(
                rf"^{prefix}/(?P<pk>[0-9]+)/relationships/(?P<related_field>{rel})$",
                relationship_view.as_view(),
                name=f"{basename}-relationships",
            ),
            re_path(
                rf"^{prefix}/(?P<pk>[0-9]+)/(?P<related_field>{rel})$",
                viewset.as_view(RELATED),
                name=f"{basename}-related",
            ),
        ]
    return routes


urlpatterns = [
    *resource("articles", "article", views.ArticleViewSet, views.ArticleRelationshipView,
              ["author", "tags", "comments"]),
    *resource("people", "person", views.PersonViewSet, views.PersonRelationshipView, ["articles"]),
    *resource("comments", "comment", views.CommentViewSet, views.CommentRelationshipView,
              ["article", "author"]),
    *resource("tags", "tag", views.TagViewSet, None, []),
    path("paged/articles", views.PagedArticleViewSet.as_view(READ_LIST), name="paged-article-list"),
    path("offset/articles", views.OffsetArticleViewSet.as_view(READ_LIST), name="offset-article-list"),
    path("cursor/articles", views.CursorArticleViewSet.as_view(READ_LIST), name="cursor-article-list"),
    path("cursor-profile/articles", views.CursorProfileArticleViewSet.as_view(READ_LIST),
         name="cursor-profile-article-list"),
    path("me", views.MeView.as_view(), name="me"),
    path("echo-headers", views.echo_headers, name="echo-headers"),
    path("notes/<int:pk>", views.note, name="note"),
    path("items", views.items, name="items"),
    path("operations", operations.OperationsView.as_view(), name="operations"),
    path("no-operations", operations.unsupported_extension, name="no-operations"),
]
