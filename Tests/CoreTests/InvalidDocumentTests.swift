import Foundation
import Testing

@testable import JSONAPIClientCore

struct InvalidCase: Decodable, CustomTestStringConvertible, Sendable {
    var name: String
    var json: String
    var pointer: String
    var code: String
    var testDescription: String { name }

    static func all() throws -> [InvalidCase] {
        try JSONDecoder().decode([InvalidCase].self, from: Fixture.data("invalid-documents"))
    }
}

@Suite("Invalid documents")
struct InvalidDocumentTests {
    @Test("Each invalid document fails with its pointer and code", arguments: try InvalidCase.all())
    func invalid(_ invalid: InvalidCase) {
        let error = decodingError(PrimaryData.self, invalid.json)
        #expect(error?.pointer == invalid.pointer)
        #expect(error?.code.rawValue == invalid.code)
    }

    @Test("Syntax errors give the byte offset")
    func syntaxOffset() {
        let error = decodingError(PrimaryData.self, #"{"data": nul}"#)
        #expect(error?.code == .invalidJSON)
        // The literal starts at byte 9 and breaks at byte 12.
        #expect((9...12).contains(error?.byteOffset ?? -1))
    }

    @Test("Truncated and mutated documents never crash: they decode or throw JSONAPIDecodingError", arguments: Fixture.valid)
    func mutations(name: String) throws {
        let original = [UInt8](try Fixture.data(name))
        var generator = SplitMix(seed: UInt64(original.count))
        let interesting: [UInt8] = Array(#"{}[]",:"\0123456789.eE-+tfnul"#.utf8) + [0x00, 0x1F, 0x80, 0xC0, 0xED, 0xF4, 0xFF]
        var inputs: [[UInt8]] = stride(from: 0, to: original.count, by: max(1, original.count / 60)).map {
            Array(original[..<$0])
        }
        for _ in 0..<150 {
            var mutated = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<mutated.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[position] = interesting.randomElement(using: &generator) ?? 0
                case 1: mutated.remove(at: position)
                default: mutated.insert(interesting.randomElement(using: &generator) ?? 0, at: position)
                }
            }
            inputs.append(mutated)
        }
        for input in inputs {
            for decodeTyped in [false, true] {
                do {
                    if decodeTyped {
                        _ = try JSONAPIDecoder().decode(Document<[Article]>.self, from: input)
                    } else {
                        _ = try JSONAPIDecoder().decode(RawDocument.self, from: input)
                    }
                } catch {
                    // Typed throws: every failure is a JSONAPIDecodingError; its description must render.
                    #expect(!error.description.isEmpty)
                }
            }
        }
    }

    @Test("Nesting beyond the limit is an error, not a stack overflow")
    func deepNesting() {
        let text = #"{"meta": {"x": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}}"
        let error = decodingError(PrimaryData.self, text)
        #expect(error?.code == .invalidJSON)
    }
}
