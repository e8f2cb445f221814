#!/usr/bin/env python3
"""Smoke test of a running test server (stdlib only).

Usage: python3 smoke_test.py [BASE_URL]   (default: the URL in .run/url)
Creates a few articles/tags/people (ids > seed) but never modifies seeded articles' pages.
Prints 'N passed, 0 failed' and exits non-zero on the first failure.
"""

import json
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

BASE = sys.argv[1] if len(sys.argv) > 1 else (Path(__file__).parent / ".run" / "url").read_text().strip()
JSONAPI = "application/vnd.api+json"
passed = 0


def req(method, path, body=None, headers=None, raw=None):
    url = path if path.startswith("http") else BASE + path
    h = {"Accept": JSONAPI}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = JSONAPI
    if raw is not None:
        data = raw
    h.update(headers or {})
    r = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            status, hdrs, text = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        status, hdrs, text = e.code, e.headers, e.read()
    doc = json.loads(text) if text.strip() else None
    return status, hdrs, doc


def check(cond, what):
    global passed
    if not cond:
        print(f"FAIL: {what}")
        print("0 passed, 1 failed" if passed == 0 else f"{passed} passed, 1 failed")
        sys.exit(1)
    passed += 1


def ids(doc):
    return [int(r["id"]) for r in doc["data"]]


# ---- include + fields + sort
s, h, d = req("GET", "/articles?include=author,comments,comments.author,tags"
                     "&fields%5Barticles%5D=title,author,comments,tags&sort=-created,title&page%5Bsize%5D=5")
check(s == 200 and h["Content-Type"] == JSONAPI, "list status/content-type")
check(ids(d)[:2] in ([200, 199],) or ids(d)[0] > 200, "sort=-created")
check(set(d["data"][0]["attributes"]) == {"title"}, "sparse fieldset attributes")
check({x["type"] for x in d["included"]} == {"people", "comments", "tags"}, "included types")
check(d["meta"]["pagination"]["page"] == 1, "meta.pagination")

# ---- filters
def count(path):
    return req("GET", path)[2]["meta"]["pagination"]["count"]

check(count("/articles?filter%5Btitle%5D=Article%20005") == 1, "filter[title]")
check(count("/articles?filter%5Btitle.icontains%5D=article%2000") >= 9, "filter[title.icontains]")
check(count("/paged/articles?filter%5Bauthor%5D=1") == 10, "filter[author]")
check(count("/paged/articles?filter%5Bauthor.in%5D=1,2") == 20, "filter[author.in]")
check(count("/paged/articles?filter%5Bcreated.gte%5D=2024-01-08T08:00:00Z") == 25, "filter[created.gte]")
check(count("/people?filter%5Bname%5D=Person%203") == 1, "people filter[name]")
check(count("/people?filter%5Bname.icontains%5D=person%201") == 11, "people filter[name.icontains]")
check(req("GET", "/articles?filter%5Bnope%5D=1")[0] == 400, "unknown filter -> 400")
check(req("GET", "/articles?sort=nope")[0] == 400, "unknown sort -> 400")


# ---- pagination walks
def walk(url, rel, limit=100):
    seen, pages = [], 0
    while url and pages < limit:
        s, _, d = req("GET", url)
        check(s == 200, f"walk {url} -> {s}")
        seen += ids(d)
        url = d["links"].get(rel)
        pages += 1
    return seen, d


for start in ("/paged/articles", "/offset/articles", "/cursor/articles", "/cursor-profile/articles"):
    fwd, last_doc = walk(start + "?page%5Bsize%5D=7", "next")
    check(len(fwd) == 200 and set(fwd) == set(range(1, 201)), f"{start} forward walk ({len(fwd)})")
    if "last" in last_doc["links"] and start != "/cursor/articles":
        s, _, first = req("GET", req("GET", start + "?page%5Bsize%5D=7")[2]["links"]["last"])
        back, _ = walk(req("GET", start + "?page%5Bsize%5D=7")[2]["links"]["last"], "prev")
    else:
        # cursor kinds: walk prev from the last page reached by next
        back_start = None
        url = start + "?page%5Bsize%5D=7"
        while url:
            d = req("GET", url)[2]
            back_start, url = url, d["links"]["next"]
        back, _ = walk(back_start, "prev")
    check(len(back) == 200 and set(back) == set(range(1, 201)), f"{start} backward walk ({len(back)})")

s, _, d = req("GET", "/cursor-profile/articles?sort=-id&page%5Bsize%5D=3")
check(ids(d) == [200, 199, 198] and d["links"]["prev"] is None and d["meta"]["page"]["total"] == 200,
      "cursor-profile sort=-id")
check(all("cursor" in r["meta"]["page"] for r in d["data"]), "cursor-profile meta.page.cursor")
s, _, d2 = req("GET", d["links"]["next"])
check(ids(d2) == [197, 196, 195], "cursor-profile next with sort=-id")
s, _, d3 = req("GET", "/cursor-profile/articles?sort=-id&page%5Bsize%5D=3&page%5Bafter%5D="
               + d["data"][0]["meta"]["page"]["cursor"] + "&page%5Bbefore%5D=" + d2["data"][1]["meta"]["page"]["cursor"])
check(ids(d3) == [199, 198, 197] and d3["meta"]["page"]["rangeTruncated"] is False, "cursor-profile range")
s, _, d = req("GET", "/cursor-profile/articles?page%5Bsize%5D=101")
check(s == 400 and d["errors"][0]["meta"]["page"]["maxSize"] == 100
      and d["errors"][0]["source"]["parameter"] == "page[size]", "cursor-profile maxSize error")
check(req("GET", "/cursor-profile/articles?page%5Bafter%5D=garbage")[0] == 400, "bad cursor -> 400")

# ---- CRUD
body = {"data": {"type": "articles", "attributes": {"title": "Created", "body": "b"},
                 "relationships": {"author": {"data": {"type": "people", "id": "2"}},
                                   "tags": {"data": [{"type": "tags", "id": "1"}]}}}}
s, h, d = req("POST", "/articles", body)
check(s == 201 and h["Location"] == f"{BASE}/articles/{d['data']['id']}", f"POST 201 + Location ({s})")
new = d["data"]["id"]
check(int(new) > 200, "new id > 200")
s, _, d = req("PATCH", f"/articles/{new}", {"data": {"type": "articles", "id": new, "attributes": {"title": "Patched"}}})
check(s == 200 and d["data"]["attributes"] == {"title": "Patched", "body": "b", "created": d["data"]["attributes"]["created"]},
      "PATCH partial")
s, _, d = req("PATCH", f"/articles/{new}", {"data": {"type": "articles", "id": new,
              "relationships": {"tags": {"data": [{"type": "tags", "id": "2"}, {"type": "tags", "id": "3"}]}}}})
check(s == 200 and [t["id"] for t in d["data"]["relationships"]["tags"]["data"]] == ["2", "3"], "PATCH rel replace")

rel = f"/articles/{new}/relationships/tags"
s, _, d = req("GET", rel)
check(s == 200 and d["links"]["self"] == BASE + rel and d["links"]["related"] == f"{BASE}/articles/{new}/tags",
      "GET relationship links")
s, _, d = req("POST", rel, {"data": [{"type": "tags", "id": "4"}]})
check(s == 200 and [t["id"] for t in d["data"]] == ["2", "3", "4"], "POST relationship add")
s, _, d = req("DELETE", rel, {"data": [{"type": "tags", "id": "2"}]})
check(s == 200 and [t["id"] for t in d["data"]] == ["3", "4"], "DELETE relationship remove")
s, _, d = req("PATCH", rel, {"data": [{"type": "tags", "id": "5"}]})
check(s == 200 and [t["id"] for t in d["data"]] == ["5"], "PATCH relationship replace")
s, _, d = req("PATCH", rel, {"data": []})
check(s == 200 and d["data"] == [], "PATCH relationship clear")
arel = f"/articles/{new}/relationships/author"
s, _, d = req("PATCH", arel, {"data": None})
check(s == 200 and d["data"] is None, "PATCH author null")
s, _, d = req("GET", arel)
check(s == 200 and d["data"] is None, "GET author null")
s, _, d = req("GET", f"/articles/{new}/author")
check(s == 200 and d["data"] is None, "GET related author null")
s, _, d = req("PATCH", arel, {"data": {"type": "people", "id": "3"}})
check(s == 200 and d["data"] == {"type": "people", "id": "3"}, "PATCH author from null")
check(req("PATCH", arel, {"data": {"type": "tags", "id": "3"}})[0] == 400, "PATCH author wrong type -> 400")
check(req("PATCH", f"/articles/{new}/relationships/comments", {"data": []})[0] == 403, "comments full replace -> 403")
s, _, d = req("GET", "/articles/1/relationships/comments")
check(s == 200 and [c["id"] for c in d["data"]] == ["1", "2"], "GET comments relationship")
s, _, d = req("GET", "/comments/1/relationships/article")
check(s == 200 and d["data"] == {"type": "articles", "id": "1"}, "GET comment article relationship")
s, _, d = req("GET", "/people/1/relationships/articles")
check(s == 200 and len(d["data"]) >= 10, "GET people articles relationship")

for path, typ, n in (("/articles/1/author", "people", None), ("/articles/1/comments", "comments", 2),
                     ("/articles/1/tags", "tags", 1), ("/people/1/articles", "articles", None),
                     ("/comments/1/article", "articles", None)):
    s, _, d = req("GET", path)
    data = d["data"] if isinstance(d["data"], list) else [d["data"]]
    check(s == 200 and all(x["type"] == typ for x in data) and (n is None or len(data) == n), f"related {path}")

s, _, _ = req("DELETE", f"/articles/{new}")
check(s == 204, "DELETE 204")
s, _, d = req("GET", f"/articles/{new}")
check(s == 404 and d["errors"][0]["status"] == "404", "deleted -> 404")

# ---- validation
s, _, d = req("POST", "/articles", {"data": {"type": "articles", "attributes": {"body": "x"}}})
check(s == 400 and d["errors"][0]["source"]["pointer"] == "/data/attributes/title", "title required pointer")
s, _, d = req("POST", "/articles", {"data": {"type": "articles", "attributes": {"title": "x" * 201}}})
check(s == 400 and d["errors"][0]["source"]["pointer"] == "/data/attributes/title", "title max_length pointer")
check(req("POST", "/articles", {"data": {"type": "people", "attributes": {"title": "x"}}})[0] == 409, "wrong type -> 409")

# ---- errors
for path in ("/nope", "/articles/999999", "/articles/"):
    s, h, d = req("GET", path)
    check(s == 404 and h["Content-Type"] == JSONAPI and d["errors"][0]["status"] == "404", f"404 {path}")
s, h, d = req("PUT", "/articles/1", {"data": {}})
check(s == 405 and d["errors"][0]["status"] == "405", "405 PUT")
check(req("DELETE", "/articles")[0] == 405, "405 DELETE collection")
s, _, d = req("GET", "/articles", headers={"Accept": "text/html"})
check(s == 406 and d["errors"][0]["status"] == "406", "406")
s, _, d = req("POST", "/articles", raw=b"hello", headers={"Content-Type": "text/plain"})
check(s == 415 and d["errors"][0]["status"] == "415", "415")

# ---- /me, /echo-headers, /notes
s, h, d = req("GET", "/me")
check(s == 401 and d["errors"][0]["code"] == "unauthorized", "401 without token")
check(req("GET", "/me", headers={"Authorization": "Bearer nope"})[0] == 401, "401 wrong token")
s, _, d = req("GET", "/me", headers={"Authorization": "Bearer secret-token"})
check(s == 200 and d["data"]["id"] == "1" and d["data"]["type"] == "people"
      and d["meta"]["authorization"] == "Bearer", "/me with token")
s, _, d = req("GET", "/me", headers={"Authorization": "Bearer other-token"})
check(s == 200 and d["data"]["id"] == "2", "/me with the other token")
s, h, d = req("GET", "/people/3", headers={"X-Test-Cache-Control": "max-age=60", "X-Test-ETag": '"fixed"'})
check(s == 200 and h["Cache-Control"] == "max-age=60" and h["ETag"] == '"fixed"', "caching headers a test asks for")
s, h, d = req("GET", "/people/3", headers={"X-Test-Cache-Control": "no-store"})
check(s == 200 and h["Cache-Control"] == "no-store" and "ETag" not in h, "no-store: no ETag")
s, _, d = req("GET", "/echo-headers", headers={"X-Custom": "hello"})
check(s == 200 and d["meta"]["headers"]["x-custom"] == "hello" and d["meta"]["headers"]["accept"] == JSONAPI, "echo")
s, _, d = req("DELETE", "/notes/7")
check(s == 200 and d == {"meta": {"deleted": "7"}}, "notes delete")

# ---- Atomic Operations (/operations): lids across operations, all or nothing, and the 415 of a server without it
ATOMIC = JSONAPI + '; ext="https://jsonapi.org/ext/atomic"'
ops = {"atomic:operations": [
    {"op": "add", "data": {"type": "people", "lid": "p", "attributes": {"name": "Atomic", "email": "a@example.com"}}},
    {"op": "add", "data": {"type": "tags", "lid": "t", "attributes": {"name": "atomic"}}},
    {"op": "add", "data": {"type": "articles", "lid": "a", "attributes": {"title": "Atomic"}, "relationships": {
        "author": {"data": {"type": "people", "lid": "p"}},
        "tags": {"data": [{"type": "tags", "lid": "t"}, {"type": "tags", "id": "1"}]}}}},
    {"op": "add", "data": {"type": "comments", "attributes": {"body": "Atomic"},
                           "relationships": {"article": {"data": {"type": "articles", "lid": "a"}}}}},
]}
s, h, d = req("POST", "/operations", raw=json.dumps(ops).encode(), headers={"Content-Type": ATOMIC, "Accept": ATOMIC})
results = [r["data"] for r in d["atomic:results"]] if s == 200 else []
check(s == 200 and h["Content-Type"].startswith(JSONAPI) and [r["type"] for r in results]
      == ["people", "tags", "articles", "comments"], f"atomic add of four resources {s} {d}")
article = results[2]
check(article["relationships"]["author"]["data"] == {"type": "people", "id": results[0]["id"]}
      and article["relationships"]["tags"]["data"] == [{"type": "tags", "id": "1"}, {"type": "tags", "id": results[1]["id"]}]
      and results[3]["relationships"]["article"]["data"] == {"type": "articles", "id": article["id"]},
      "atomic lids become ids")
again = json.loads(json.dumps(ops).replace('"Atomic"', '"Atomic again"'))
again["atomic:operations"][2]["data"]["attributes"]["title"] = "x" * 201
s, _, d = req("POST", "/operations", raw=json.dumps(again).encode(), headers={"Content-Type": ATOMIC, "Accept": ATOMIC})
check(s == 400 and count("/people?filter%5Bname%5D=Atomic%20again") == 0, "a failing operation rolls back the others")
s, h, d = req("POST", "/no-operations", raw=json.dumps(ops).encode(), headers={"Content-Type": ATOMIC, "Accept": ATOMIC})
check(s == 415 and d["errors"][0]["status"] == "415", "a server without the extension: 415")

# ---- concurrent writes
results = []


def create(i):
    b = {"data": {"type": "articles", "attributes": {"title": f"Concurrent {i}"}}}
    results.append(req("POST", "/articles", b)[0])


threads = [threading.Thread(target=create, args=(i,)) for i in range(24)]
[t.start() for t in threads]
[t.join() for t in threads]
check(results == [201] * 24, f"concurrent POSTs {results}")
fwd, _ = walk("/paged/articles?page%5Bsize%5D=50", "next")
check(len(fwd) == 200, "seeded endpoints unaffected by created articles")

print(f"{passed} passed, 0 failed")
