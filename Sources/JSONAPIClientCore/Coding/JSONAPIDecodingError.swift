/// Why a document could not be decoded: what was expected, what was found, and where.
///
/// `pointer` is a JSON Pointer (RFC 6901) into the document, e.g. `/data/1/relationships/author/data`; the empty
/// string is the whole document.
public struct JSONAPIDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// The bytes are not valid JSON (syntax, encoding, nesting depth).
        public static let invalidJSON = Code("invalidJSON")
        /// A member has the wrong JSON type, e.g. a string where an object belongs.
        public static let typeMismatch = Code("typeMismatch")
        /// A required member is missing.
        public static let missingMember = Code("missingMember")
        /// The document breaks a rule of the JSON:API specification (e.g. `data` together with `errors`).
        public static let invalidDocument = Code("invalidDocument")
        /// A value has the right JSON type but cannot be used (e.g. a date in the wrong format).
        public static let invalidValue = Code("invalidValue")
        /// A model's `init(from:)` used its decoder or a container on another thread than the decode's (for
        /// example inside `DispatchQueue.concurrentPerform`): a decode's decoders answer only on its own thread.
        public static let wrongThread = Code("wrongThread")
        /// The description of the code.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// Where: a JSON Pointer into the document.
    public var pointer: String
    /// What was expected there, e.g. `"an object"`.
    public var expected: String?
    /// What was found there, e.g. `"a string"`.
    public var found: String?
    /// A sentence for anything the other members do not say.
    public var detail: String?
    /// The byte offset in the input, when known (syntax errors).
    public var byteOffset: Int?
    /// The coding path in your model, when the failure happened while decoding it (e.g. `author.name`).
    public var codingPath: [String]

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - pointer: The JSON Pointer of the value.
    ///   - expected: What the decoder expected there.
    ///   - found: What it found.
    ///   - detail: More about it.
    ///   - byteOffset: Where in the input, for a syntax error.
    ///   - codingPath: The Swift coding path.
    public init(
        code: Code, pointer: String, expected: String? = nil, found: String? = nil, detail: String? = nil,
        byteOffset: Int? = nil, codingPath: [String] = []
    ) {
        self.code = code
        self.pointer = pointer
        self.expected = expected
        self.found = found
        self.detail = detail
        self.byteOffset = byteOffset
        self.codingPath = codingPath
    }

    /// `POINTER: expected X, found Y; detail`, e.g. `/data/0/type: expected a string, found a number`.
    public var description: String {
        var text = (pointer.isEmpty ? "/" : pointer) + ": "
        var parts: [String] = []
        if let expected { parts.append("expected \(expected)" + (found.map { ", found \($0)" } ?? "")) }
        if let detail { parts.append(detail) }
        if let byteOffset { parts.append("at byte \(byteOffset)") }
        if !codingPath.isEmpty { parts.append("decoding \(codingPath.joined(separator: "."))") }
        text += parts.joined(separator: "; ")
        return text
    }
}
