import Foundation

extension JSONAPIEncoder {
    /// The body of an Atomic Operations request: `{"atomic:operations": [...]}`.
    ///
    /// - Parameters:
    ///   - operations: The operations, in order.
    ///   - meta: Top-level meta-information, if any.
    /// - Returns: The JSON body.
    /// - Throws: `EncodingError` when a value cannot be written.
    public func encodeAtomicOperations(_ operations: [AtomicOperation], meta: Meta? = nil) throws -> Data {
        var members: [String: JSONValue] = ["atomic:operations": .array(operations.map(AtomicCoding.value(of:)))]
        if let meta { members["meta"] = .object(meta) }
        return Data(bytes(of: .object(members)))
    }
}

extension JSONAPIDecoder {
    /// The results of an Atomic Operations response: `{"atomic:results": [...]}`, in request order.
    ///
    /// The extension requires `atomic:results` in a document that answers operations (only a 204 has none, and no
    /// body to decode): a document without it is a ``JSONAPIDecodingError/Code/missingMember`` error, not `[]`.
    ///
    /// - Parameter data: The body of a successful Atomic Operations response.
    /// - Returns: One result per operation, in request order.
    /// - Throws: ``JSONAPIDecodingError`` when the body is not JSON, has no `atomic:results` array, or a result is
    ///   not a result object.
    public func decodeAtomicResults(from data: Data) throws(JSONAPIDecodingError) -> [AtomicResult] {
        try Self.withTape(of: data, maxDepth: maxNestingDepth) { tape throws(JSONAPIDecodingError) in
            let reader = DocumentReader(tape: tape)
            try reader.expectObject(0)
            guard let results = ResourceMembers.member("atomic:results", of: 0, in: tape) else {
                throw JSONAPIDecodingError(
                    code: .missingMember, pointer: "/atomic:results", expected: "member \"atomic:results\"")
            }
            guard tape.kind(results) == .array else { throw reader.mismatch(results, expected: "an array") }
            var decoded: [AtomicResult] = []
            var element = results + 1
            for _ in 0..<tape.count(results) {
                try reader.expectObject(element)
                var result = AtomicResult()
                if let data = ResourceMembers.member("data", of: element, in: tape) {
                    result.data = try reader.primaryData(data)
                }
                if let meta = ResourceMembers.member("meta", of: element, in: tape) {
                    result.meta = try reader.optionalMeta(meta)
                }
                decoded.append(result)
                element = tape.skip(element)
            }
            return decoded
        }
    }
}

enum AtomicCoding {
    static func value(of operation: AtomicOperation) -> JSONValue {
        var members: [String: JSONValue] = ["op": .string(operation.op.rawValue)]
        if let ref = operation.ref {
            var reference: [String: JSONValue] = ["type": .string(ref.type)]
            if let id = ref.id { reference["id"] = .string(id) }
            if let lid = ref.lid { reference["lid"] = .string(lid) }
            if let relationship = ref.relationship { reference["relationship"] = .string(relationship) }
            members["ref"] = .object(reference)
        }
        if let href = operation.href { members["href"] = .string(href) }
        if let data = operation.data { members["data"] = DocumentWriter.value(of: data) }
        if let meta = operation.meta { members["meta"] = .object(meta) }
        return .object(members)
    }
}
