import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Values print as what they are: JSON as JSON text, links as their URLs, progress as a sentence.
@Suite("Printing values")
struct PrintingTests {
    @Test("JSONValue prints as compact JSON, keys sorted, in print, interpolation and debugPrint")
    func jsonValue() throws {
        let value: JSONValue = ["b": [1, 2.5, "x\"y", nil, true], "a": ["c": false]]
        #expect(value.description == #"{"a":{"c":false},"b":[1,2.5,"x\"y",null,true]}"#)
        #expect("\(value)" == value.description)
        #expect(String(reflecting: value) == value.description)
        #expect(JSONValue.string("hi").description == #""hi""#)
        #expect(JSONValue.int(1).description == "1")
        #expect(JSONValue.double(1).description == "1.0")
        #expect(JSONValue.null.description == "null")
        #expect(JSONValue.array([]).description == "[]")
        #expect(JSONValue.object([:]).description == "{}")
        let big = try #require(JSONNumber("123456789012345678901234567890"))
        #expect(JSONValue.number(big).description == "123456789012345678901234567890")
        #expect(JSONValue.string("line\nbreak").description == #""line\nbreak""#)
    }

    @Test("Meta, a dictionary of JSON values, prints its values as JSON")
    func meta() {
        let meta: Meta = ["total": 200]
        #expect("\(meta)" == #"["total": 200]"#)
        let nested: Meta = ["page": ["size": 10, "cursor": "abc"]]
        #expect("\(nested)" == #"["page": {"cursor":"abc","size":10}]"#)
    }

    @Test("Link prints as its href, a link object's other members after it")
    func link() {
        #expect(Link(href: "https://api.example.com/a").description == "https://api.example.com/a")
        #expect("\(Link(href: "/b"))" == "/b")
        let rich = Link(
            href: "/a", rel: "about", describedBy: Link(href: "/schema"), title: "A \"title\"", type: "text/html",
            hreflang: ["en", "de"], meta: ["n": 1])
        #expect(
            rich.description
                == #"/a (rel: about, title: "A \"title\"", type: text/html, hreflang: en,de, describedby: /schema, meta: {"n":1})"#)
    }

    @Test("Links print as name: URL, the document's own links, then the pages, then the rest by name; null as null")
    func links() {
        var links = Links(["next": Link(href: "https://x/p3"), "self": Link(href: "https://x/p2"), "zz": nil, "aa": "/aa"])
        links.members["prev"] = .some(nil)
        #expect(links.description == "self: https://x/p2, prev: null, next: https://x/p3, aa: /aa, zz: null")
        #expect("\(Links())" == "[:]")
    }

    @Test("PaginationProgress prints pages and resources, of the total when known; singulars at one", arguments: [
        (PaginationProgress(pagesFetched: 3, resourcesFetched: 120, totalResources: 200), "3 pages, 120 of 200 resources"),
        (PaginationProgress(pagesFetched: 1, resourcesFetched: 40, totalResources: nil), "1 page, 40 resources"),
        (PaginationProgress(pagesFetched: 1, resourcesFetched: 1, totalResources: nil), "1 page, 1 resource"),
        (PaginationProgress(pagesFetched: 1, resourcesFetched: 1, totalResources: 1), "1 page, 1 of 1 resource"),
        (PaginationProgress(pagesFetched: 0, resourcesFetched: 0, totalResources: 0), "0 pages, 0 of 0 resources"),
    ])
    func progress(_ progress: PaginationProgress, _ expected: String) {
        #expect(progress.description == expected)
        #expect("\(progress)" == expected)
    }
}
