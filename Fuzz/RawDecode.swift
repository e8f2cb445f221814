// Fuzz target: the schema-less decoder (`RawDocument`), and the JSON parser under it checked against Foundation's.
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawDecode(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzInput(bytes, count)
    let document = try? JSONAPIDecoder().decode(RawDocument.self, from: data)
    _ = try? JSONAPIDecoder().decode(RawDocument.self, from: [UInt8](data))
    _ = try? JSONAPIDecoder(maxNestingDepth: 4).decode(RawDocument.self, from: data)
    _ = try? JSONAPIDecoder().decodeResource(ResourceObject.self, from: data)
    if let document {
        // The accessors every caller uses.
        _ = document.data?.resources
        _ = document.data?.identifiers
        _ = document.included?.map(\.identifier)
    }
    checkParserAgreesWithFoundation(data)
    return 0
}

/// The library's parser accepts exactly the JSON that Foundation's accepts (less Foundation's leniencies), and reads
/// the same value. The validator is the parser's public entry for any JSON text; the value is read through a
/// document's `meta` once the text is known to be one JSON value.
private func checkParserAgreesWithFoundation(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    let oursAccepts = (try? DocumentValidator.validate(data)) != nil
    let foundationAccepts = (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil
    let foundation = try? JSONDecoder().decode(JSONValue.self, from: data)
    if let foundation, depth(foundation) >= 500 { return }  // the library's nesting limit
    if oursAccepts {
        let wrapped = Data(#"{"meta":{"v":"#.utf8) + data + Data("}}".utf8)
        let ours = (try? JSONAPIDecoder().decode(RawDocument.self, from: wrapped))?.meta?["v"]
        guard let ours else { return check(false, "the parser accepts \(text.debugDescription) alone but not as a member") }
        // Foundation rejects numbers it cannot hold (1e400); the library keeps them.
        check(foundationAccepts || hasUnrepresentableNumber(ours), "the parser accepts \(text.debugDescription), which is not JSON")
        // Of repeated keys the library keeps the last, Foundation the first: JSON leaves it open.
        if let foundation, !hasRepeatedKeys(data) {
            check(sameValue(ours, foundation), "the parser reads \(ours), Foundation reads \(foundation), from \(text.debugDescription)")
        }
    } else if foundationAccepts, !isLenientOnly(data) {
        check(false, "the parser rejects \(text.debugDescription), which Foundation reads")
    }
}

/// Whether the text uses what Foundation accepts beyond RFC 8259's UTF-8 JSON: a byte-order mark, UTF-16 or UTF-32
/// (NUL bytes, never valid in UTF-8 JSON), or a comma before a closing bracket (looked for anywhere, strings too:
/// this only spares inputs from the check).
private func isLenientOnly(_ data: Data) -> Bool {
    if data.starts(with: [0xEF, 0xBB, 0xBF]) || data.contains(0) { return true }
    var lastSignificant: UInt8 = 0
    for byte in data where ![0x20, 0x09, 0x0A, 0x0D].contains(byte) {
        if (byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")) && lastSignificant == UInt8(ascii: ",") { return true }
        lastSignificant = byte
    }
    return false
}

/// Whether `value` holds a number Foundation refuses (an infinite or underflowing literal such as `1e400`).
private func hasUnrepresentableNumber(_ value: JSONValue) -> Bool {
    switch value {
    case .array(let elements): return elements.contains(where: hasUnrepresentableNumber)
    case .object(let members): return members.values.contains(where: hasUnrepresentableNumber)
    case .number:
        // A literal kept as written because neither Int64 nor Double holds it exactly (1e400, 2^70): Foundation
        // rejects some of these, the library keeps them all.
        return true
    default:
        if case .int = value { return false }
        guard let number = value.doubleValue else { return false }
        return !number.isFinite || number == 0
    }
}

/// Whether an object in the JSON text `data` (known to be valid) repeats a key.
private func hasRepeatedKeys(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    var objects: [(keys: Set<String>, expectsKey: Bool)?] = []  // nil for an array
    var index = 0
    while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "{"): objects.append(([], true))
        case UInt8(ascii: "["): objects.append(nil)
        case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = objects.popLast()
        case UInt8(ascii: ","): if objects.last??.expectsKey == false { objects[objects.count - 1]!.expectsKey = true }
        case UInt8(ascii: "\""):
            var end = index + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
            if let object = objects.last ?? nil, object.expectsKey {
                let literal = Data(bytes[index...min(end, bytes.count - 1)])
                let key = (try? JSONDecoder().decode(String.self, from: literal)) ?? String(decoding: literal, as: UTF8.self)
                if object.keys.contains(key) { return true }
                objects[objects.count - 1] = (object.keys.union([key]), false)
            }
            index = end
        default: break
        }
        index += 1
    }
    return false
}

/// Equal values, numbers compared by their value (nearly) whatever case holds them.
private func sameValue(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.array(let left), .array(let right)):
        return left.count == right.count && zip(left, right).allSatisfy(sameValue)
    case (.object(let left), .object(let right)):
        return left.count == right.count && left.allSatisfy { key, value in right[key].map { sameValue(value, $0) } ?? false }
    default:
        // Foundation reads some numbers inexactly (123456789012345672.89 as the integer …672); the exact value of
        // a number is the round-trip target's to check.
        if let left = lhs.doubleValue, let right = rhs.doubleValue {
            return left == right || abs(left - right) <= 1e-12 * max(abs(left), abs(right))
        }
        return lhs == rhs
    }
}

private func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
    default: 0
    }
}
