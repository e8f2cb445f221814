import Foundation
import Testing

@testable import JSONAPIClientCore

/// The encoder decides once per type whether a value is a relationship, a special value or a plain one; optionals
/// and classes keep being looked at value by value. The output is the same either way.
@Suite("Encoding roles")
struct EncodingRoleTests {
    struct Tag: Resource, Equatable {
        static let resourceType = "tags"
        var id: String
        var label: String
    }

    final class Owner: Resource, @unchecked Sendable {
        static let resourceType = "owners"
        var id = "o1"
        var name = "class model"
    }

    /// Writes optionals and other values through the generic `encode(_:forKey:)`.
    struct Entry: Resource {
        static let resourceType = "entries"
        var id = "1"
        var tag: Tag? = Tag(id: "t1", label: "one")
        var missingTag: Tag? = nil
        var owner = Owner()
        var tags = [Tag(id: "t2", label: "two")]
        var words = ["a", "b"]
        var when = Date(timeIntervalSince1970: 0)
        var site = URL(string: "https://example.com/x")
        var amount = Decimal(string: "12.5")
        var extra: JSONValue = ["k": [1, "v"]]
        var links = Links(["self": Link(href: "/entries/1")])
        var meta: Meta = ["m": true]
        var identifier = ResourceIdentifier(type: "people", id: "9")

        enum CodingKeys: String, CodingKey {
            case id, tag, missingTag, owner, tags, words, when, site, amount, extra, links, meta, identifier
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(tag, forKey: .tag)  // Optional<Tag>, not encodeIfPresent
            try container.encode(missingTag, forKey: .missingTag)  // nil: an attribute written as null
            try container.encode(owner, forKey: .owner)
            try container.encode(Optional(tags), forKey: .tags)
            try container.encode(words, forKey: .words)
            try container.encode(when, forKey: .when)
            try container.encode(Optional(site), forKey: .site)
            try container.encode(amount, forKey: .amount)
            try container.encode(extra, forKey: .extra)
            try container.encode(Optional(links), forKey: .links)
            try container.encode(meta, forKey: .meta)
            try container.encode(identifier, forKey: .identifier)
        }

        init() {}
        init(from decoder: any Decoder) throws {}
    }

    @Test("Relationships, special values and plain values, with and without optionals and classes")
    func everyRole() throws {
        let data = try JSONAPIEncoder().encode(Document(data: [Entry()]))
        let json = try JSONValue(parsing: [UInt8](data))
        let resource = try #require(json["data"]?[0])
        let relationships = try #require(resource["relationships"])
        #expect(relationships["tag"] == ["data": ["type": "tags", "id": "t1"]])
        #expect(relationships["owner"] == ["data": ["type": "owners", "id": "o1"]])
        #expect(relationships["tags"] == ["data": [["type": "tags", "id": "t2"]]])
        #expect(relationships["identifier"] == ["data": ["type": "people", "id": "9"]])
        let attributes = try #require(resource["attributes"])
        #expect(attributes["missingTag"] == .null)
        #expect(attributes["words"] == ["a", "b"])
        #expect(attributes["when"] == "1970-01-01T00:00:00Z")
        #expect(attributes["site"] == "https://example.com/x")
        #expect(attributes["amount"] == 12.5)
        #expect(attributes["extra"] == ["k": [1, "v"]])
        #expect(resource["links"] == ["self": "/entries/1"])
        #expect(resource["meta"] == ["m": true])
        #expect(json["included"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["tags", "owners", "tags"])
    }
}
