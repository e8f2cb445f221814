/// One way a document breaks a MUST rule of the JSON:API specification, found by ``DocumentValidator``.
public struct SpecViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where: a JSON Pointer (RFC 6901) into the document; the empty string is the whole document.
    public var pointer: String
    /// What rule is broken.
    public var message: String

    /// Creates a violation.
    /// - Parameters:
    ///   - pointer: A JSON Pointer into the document; `""` for the whole document.
    ///   - message: The rule that is broken, as a sentence without a final period.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `POINTER: message`, with `/` for the whole document.
    public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}
