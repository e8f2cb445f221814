import Foundation
import JSONAPIClientCore
import Testing

@Suite("Resource identity")
struct ResourceIdentityTests {
    /// A model that cannot be encoded: identity must come from its properties.
    struct Sealed: Resource {
        static let resourceType = "sealed"
        var id: Int
        var lid: String?
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "not encodable"))
        }
    }

    struct Draft: Resource {
        static let resourceType = "articles"
        var id: String?
        var title: String
    }

    @Test("Identity is read from the model's id and lid, never by encoding it")
    func identityWithoutEncoding() {
        let sealed = Sealed(id: 42, lid: "l1")
        #expect(ResourceIdentifier(of: sealed) == ResourceIdentifier(type: "sealed", id: "42", lid: "l1"))
        #expect(ToOne(sealed).identifier == ResourceIdentifier(type: "sealed", id: "42", lid: "l1"))
        #expect(ToMany([sealed, Sealed(id: 0)]).identifiers.map(\.id) == ["42", "0"])
        var update = ResourceUpdate<Draft>(id: "1")
        update.setRelationship("owner", to: sealed)
        #expect(Draft(title: "t").id == nil)
        #expect(ResourceIdentifier(of: Draft(title: "t")) == ResourceIdentifier(type: "articles"))
        #expect(ResourceIdentifier(of: Draft(id: "", title: "t")).id == "")
    }

    @Test("A model with an optional id is created without one: no placeholder")
    func createWithoutID() throws {
        let body = try JSONAPIEncoder().encodeCreateBody(for: Draft(title: "Hello"))
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: body)
        guard case .resource(let resource)? = raw.data else {
            Issue.record("expected one resource")
            return
        }
        #expect(resource.id == nil && resource.type == "articles" && resource.attributes == ["title": "Hello"])
        let withID = try JSONAPIDecoder().decode(
            RawDocument.self, from: JSONAPIEncoder().encodeCreateBody(for: Draft(id: "c-1", title: "Hello")))
        #expect(withID.data?.resources.first?.id == "c-1")
    }

    /// Identification members whose values are not plain strings or integers go through the generic path.
    struct Wrapped: Encodable {
        var text: String
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }

    struct Relabelled: Encodable {
        var id: Wrapped
        var lid: Wrapped
        var type: Wrapped
        var title: String
    }

    @Test("An id, lid and type written as values of their own types land in the identification, each in its place")
    func wrappedIdentification() throws {
        let model = Relabelled(id: Wrapped(text: "7"), lid: Wrapped(text: "l7"), type: Wrapped(text: "notes"), title: "t")
        let resource = try JSONAPIEncoder().resourceObject(for: model)
        #expect(resource.id == "7" && resource.lid == "l7" && resource.type == "notes")
        #expect(resource.attributes == ["title": "t"])
    }
}
