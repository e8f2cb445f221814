// Tests that the decoding context finds each type's role, through its direct-mapped table too, when more types are
// in use than the table has slots.
import Foundation
import Testing

@testable import JSONAPIClientCore

/// A distinct type per `T`: `Level<Level<Int>>` is not `Level<Int>`.
private struct Level<T>: Decodable {}

/// Checks that `role(of:)` calls the type and the array of it what they are: 2 × (depth + 1) distinct types.
private func probes<T>(_ type: T.Type, depth: Int) -> [(ResourceDecodingContext) -> Bool] {
    var list: [(ResourceDecodingContext) -> Bool] = [
        { if case .plain = $0.role(of: Level<T>.self) { true } else { false } },
        { if case .array = $0.role(of: [Level<T>].self) { true } else { false } },
    ]
    if depth > 0 { list += probes(Level<T>.self, depth: depth - 1) }
    return list
}

@Suite("Roles of types")
struct RoleTests {
    @Test("Each of 140 types has its own role, asked for in turn three times (more types than the table's 64 slots)")
    func manyTypes() throws {
        let checks = probes(Int.self, depth: 69)
        #expect(checks.count == 140)
        let body = Data(#"{"type":"articles","id":"1"}"#.utf8)
        let wrong = try JSONAPIDecoder.withTape(of: body, maxDepth: 512) { tape throws(JSONAPIDecodingError) in
            var context = try ResourceDecodingContext(
                tape: tape, reader: DocumentReader(tape: tape), options: JSONAPIDecoder(), dataIndex: 0)
            defer { ResourceDecodingContext.endDecode(&context) }
            var wrong: [Int] = []
            for pass in 0..<3 {
                for (position, check) in checks.enumerated() where !check(context) { wrong.append(pass * 1000 + position) }
            }
            return wrong
        }
        #expect(wrong == [])
    }
}
