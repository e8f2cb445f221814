/// Why a JSON text could not be parsed, and where.
struct JSONParseError: Error, Sendable, Equatable {
    /// Byte offset of the offending byte in the input.
    var offset: Int
    /// What is wrong, e.g. "unterminated string", "trailing comma in object".
    var reason: String
}

extension JSONTape {
    /// Parses `bytes` (RFC 8259, strict) into a tape. STUB: to be replaced by the real parser.
    init(parsing bytes: [UInt8], maxDepth: Int = 512) throws(JSONParseError) {
        throw JSONParseError(offset: 0, reason: "parser not implemented")
    }

    /// Decodes the JSON string body `bytes[range]` (without quotes), which contains escapes. STUB.
    static func unescape(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }
}
