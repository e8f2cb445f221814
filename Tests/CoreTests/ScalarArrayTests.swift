// Arrays of strings, integers, doubles and Booleans are read by code specialized for each element type; every other
// array goes through the generic path. These tests hold the two to the same results and the same errors.
import Foundation
import Testing

@testable import JSONAPIClientCore

@Suite("Arrays of strings and numbers")
struct ScalarArrayTests {
    struct Sample: Resource, Equatable {
        static let resourceType = "samples"
        var id: String
        var tags: [String]
        var counts: [Int]
        var scores: [Double]
        var flags: [Bool]
    }

    /// The same members through the generic path: optional elements and nested arrays are not specialized.
    struct GenericSample: Resource, Equatable {
        static let resourceType = "samples"
        var id: String
        var tags: [String?]
        var counts: [[Int]]
    }

    private func sample(_ attributes: String) -> String {
        #"{"data": {"type": "samples", "id": "1", "attributes": {\#(attributes)}}}"#
    }

    @Test("Values, escapes, empty arrays and one element come out as written")
    func values() throws {
        let text = sample(
            #""tags": ["a", "caf\u00e9", "x\"y", ""], "counts": [0, -1, 9223372036854775807, 2.0], "scores": [1.5, -0.0, 3, 1e2], "flags": [true, false]"#
        )
        let decoded = try #require(try JSONAPIDecoder().decode(Document<Sample>.self, from: Data(text.utf8)).data)
        #expect(decoded.tags == ["a", "café", "x\"y", ""])
        #expect(decoded.counts == [0, -1, Int.max, 2])
        #expect(decoded.scores == [1.5, -0.0, 3, 100])
        #expect(decoded.scores[1].sign == .minus)
        #expect(decoded.flags == [true, false])

        let empty = sample(#""tags": [], "counts": [], "scores": [], "flags": []"#)
        let none = try #require(try JSONAPIDecoder().decode(Document<Sample>.self, from: Data(empty.utf8)).data)
        #expect(none == Sample(id: "1", tags: [], counts: [], scores: [], flags: []))

        let one = sample(#""tags": ["only"], "counts": [7], "scores": [0.25], "flags": [true]"#)
        let single = try #require(try JSONAPIDecoder().decode(Document<Sample>.self, from: Data(one.utf8)).data)
        #expect(single == Sample(id: "1", tags: ["only"], counts: [7], scores: [0.25], flags: [true]))
    }

    @Test("Nested arrays and optional elements still decode (the generic path around the specialized one)")
    func nestedAndOptional() throws {
        let text = sample(#""tags": ["a", null, "c"], "counts": [[1, 2], [], [3]]"#)
        let decoded = try #require(try JSONAPIDecoder().decode(Document<GenericSample>.self, from: Data(text.utf8)).data)
        #expect(decoded.tags == ["a", nil, "c"])
        #expect(decoded.counts == [[1, 2], [], [3]])
    }

    @Test(
        "A wrong element is an error at its own index, as on the generic path",
        arguments: [
            (#""tags": ["a", null], "counts": [], "scores": [], "flags": []"#, "/data/attributes/tags/1", "a string"),
            (#""tags": [], "counts": [1, "2"], "scores": [], "flags": []"#, "/data/attributes/counts/1", nil),
            (#""tags": [], "counts": [1.5], "scores": [], "flags": []"#, "/data/attributes/counts/0", nil),
            (#""tags": [], "counts": [0, 0, 1e30], "scores": [], "flags": []"#, "/data/attributes/counts/2", nil),
            (#""tags": [], "counts": [], "scores": [true], "flags": []"#, "/data/attributes/scores/0", nil),
            (#""tags": [], "counts": [], "scores": [], "flags": [true, 1]"#, "/data/attributes/flags/1", nil),
        ])
    func wrongElement(attributes: String, pointer: String, expected: String?) {
        let error = decodingError(Sample.self, sample(attributes))
        #expect(error?.pointer == pointer)
        if let expected { #expect(error?.expected == expected) }
    }

    @Test("The errors match the generic path's, element for element")
    func sameErrorsAsGeneric() {
        // `[String?]` goes through the generic path; a number where a string belongs fails there as in `[String]`.
        let text = sample(#""tags": ["a", 5], "counts": [], "scores": [], "flags": []"#)
        let specialized = decodingError(Sample.self, text)
        let generic = decodingError(GenericSample.self, sample(#""tags": ["a", 5], "counts": []"#))
        #expect(specialized?.pointer == "/data/attributes/tags/1")
        #expect(specialized?.pointer == generic?.pointer)
        #expect(specialized?.expected == generic?.expected)
        #expect(specialized?.found == generic?.found)
    }

    @Test("An array where an object belongs is an error at the member")
    func notAnArray() {
        let error = decodingError(Sample.self, sample(#""tags": "a", "counts": [], "scores": [], "flags": []"#))
        #expect(error?.pointer == "/data/attributes/tags")
        #expect(error?.found == "a string")
    }
}
