from django.db import models
from django.utils import timezone

# Articles with id <= SEED_ARTICLE_COUNT are the seeded ones; the read-only
# pagination endpoints (/paged, /offset, /cursor, /cursor-profile) only show these.
SEED_ARTICLE_COUNT = 200


class Person(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField(max_length=200)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "people"


class Tag(models.Model):
    name = models.CharField(max_length=50)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "tags"


class Article(models.Model):
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=timezone.now)
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="articles"
    )
    tags = models.ManyToManyField(Tag, blank=True, related_name="articles")

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "articles"


class Comment(models.Model):
    body = models.TextField()
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments"
    )

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "comments"
