/// A document's resources into the index: the one place where the identification of a resource object is checked
/// for indexing — an object with a string `type`, an `id` that is a string (or a number, read as its text) or a
/// string `lid` — and where "a `(type, id)` names one resource per document" is enforced, for the schema-less reader
/// and the typed decode alike.
extension ResourceIndex {
    /// Registers each element of the array at `array`; see ``register(_:reader:)``.
    mutating func registerElements(of array: Int, reader: DocumentReader) throws(JSONAPIDecodingError) {
        var element = array + 1
        for _ in 0..<reader.tape.count(array) {
            try register(element, reader: reader)
            element = reader.tape.skip(element)
        }
    }

    /// Registers the resource object at `object` under its `(type, id)`, or its `(type, lid)`.
    ///
    /// - Throws: ``JSONAPIDecodingError`` when it is not a resource object, and when another resource of the
    ///   document has the same `type` and `id`.
    mutating func register(_ object: Int, reader: DocumentReader) throws(JSONAPIDecodingError) {
        let tape = reader.tape
        guard tape.kind(object) == .object else {
            throw reader.mismatch(object, expected: "a resource object")
        }
        let members = ResourceMembers.identity(of: object, in: tape)
        guard let typeIndex = members.type else { throw reader.missing("type", in: object) }
        guard tape.kind(typeIndex) == .string else { throw reader.mismatch(typeIndex, expected: "a string") }
        if let idIndex = members.id {
            guard tape.kind(idIndex) == .string || tape.kind(idIndex) == .number else {
                throw reader.mismatch(idIndex, expected: "a string")
            }
            if insert(type: typeIndex, key: idIndex, local: false, target: object, in: tape) != nil {
                let type = tape.string(typeIndex), id = try reader.identifierString(idIndex)
                throw reader.invalid(object, "resource \(type)/\(id) appears more than once in the document")
            }
        } else if let lidIndex = members.lid {
            guard tape.kind(lidIndex) == .string else { throw reader.mismatch(lidIndex, expected: "a string") }
            _ = insert(type: typeIndex, key: lidIndex, local: true, target: object, in: tape)
        }
    }
}
