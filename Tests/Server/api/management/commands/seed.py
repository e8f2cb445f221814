"""Deterministic seed data (no randomness). See README.md for the exact rules."""

from datetime import datetime, timedelta, timezone

from django.core.management.base import BaseCommand
from django.db import transaction

from api.models import SEED_ARTICLE_COUNT, Article, Comment, Person, Tag

PEOPLE = 20
TAGS = 5
BASE = datetime(2024, 1, 1, tzinfo=timezone.utc)


def article_tag_ids(n):
    first = (n - 1) % TAGS + 1
    ids = [first]
    if n % 3 == 0:
        ids.append(first % TAGS + 1)
    return ids


class Command(BaseCommand):
    help = "Seed the database with the deterministic test data set."

    @transaction.atomic
    def handle(self, *args, **options):
        Person.objects.bulk_create(
            Person(id=i, name=f"Person {i}", email=f"person{i}@example.com")
            for i in range(1, PEOPLE + 1)
        )
        Tag.objects.bulk_create(Tag(id=i, name=f"tag-{i}") for i in range(1, TAGS + 1))
        Article.objects.bulk_create(
            Article(
                id=n,
                title=f"Article {n:03d}",
                body=f"Body of article {n}.",
                created=BASE + timedelta(hours=n),
                author_id=(n - 1) % PEOPLE + 1,
            )
            for n in range(1, SEED_ARTICLE_COUNT + 1)
        )
        Through = Article.tags.through
        Through.objects.bulk_create(
            Through(article_id=n, tag_id=t)
            for n in range(1, SEED_ARTICLE_COUNT + 1)
            for t in article_tag_ids(n)
        )
        comments = []
        for n in range(1, SEED_ARTICLE_COUNT + 1):
            for k in (0, 1):
                cid = 2 * n - 1 + k
                comments.append(
                    Comment(
                        id=cid,
                        body=f"Comment {cid} on article {n}.",
                        article_id=n,
                        author_id=(n + k) % PEOPLE + 1,
                    )
                )
        Comment.objects.bulk_create(comments)
