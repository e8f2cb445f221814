/// Checking a resource object without reading it into values: what the store checks of each resource it keeps as
/// parsed (`ResourceRecords`), so that every kept record reads back (``resource(_:)``) without an error.
///
/// Each function throws exactly when its reading counterpart would — ``resource(_:)``, ``relationship(_:)``,
/// ``linkage(_:)``, ``identifier(_:)``, ``links(_:)``, ``link(_:)`` — and builds nothing. `ResourceRecordTests`
/// and the `RawDecode` fuzz target hold the two sides to the same answers.
extension DocumentReader {
    /// Throws what ``resource(_:)`` throws for the value at `index`.
    ///
    /// - Returns: The value indexes of the resource's `type` and `id` members (the last of each, as reading takes
    ///   them; `id` is `nil` when there is none), found on the way, so that the caller need not look again.
    @discardableResult
    func checkResource(_ index: Int) throws(Failure) -> (type: Int, id: Int?) {
        try expectObject(index)
        var type: Int?, id: Int?
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            switch ResourceMembers.fixedMember(key, in: tape) {
            case .type:
                try checkString(value)
                type = value
            case .id:
                try checkIdentifierString(value)
                id = value
            case .attributes, .meta: try checkOptionalObject(value)
            case .relationships:
                if tape.kind(value) != .null {
                    try expectObject(value)
                    try checkRelationships(value)
                }
            case .lid: try checkString(value)
            case .links: if tape.kind(value) != .null { try checkLinks(value) }
            case nil: break
            }
            key = tape.skip(value)
        }
        guard let type else { throw missing("type", in: index) }
        return (type, id)
    }

    /// An object or `null` (absent), as ``optionalMeta(_:)`` and optional attributes read it.
    private func checkOptionalObject(_ index: Int) throws(Failure) {
        if tape.kind(index) != .null { try expectObject(index) }
    }

    private func checkString(_ index: Int) throws(Failure) {
        guard tape.kind(index) == .string else { throw mismatch(index, expected: "a string") }
    }

    private func checkIdentifierString(_ index: Int) throws(Failure) {
        guard tape.kind(index) == .string || tape.kind(index) == .number else {
            throw mismatch(index, expected: "a string")
        }
    }

    /// The members of a `relationships` object, skipping `@`-members and extension members as reading does.
    private func checkRelationships(_ index: Int) throws(Failure) {
        var key = index + 1
        for _ in 0..<tape.count(index) {
            if !isSpecialMember(key) { try checkRelationship(key + 1) }
            key = tape.skip(key + 1)
        }
    }

    /// Whether the key at `index` names an `@`-member or an extension member.
    private func isSpecialMember(_ index: Int) -> Bool {
        let node = tape.nodes[index]
        if node.flags & JSONTape.stringHasEscapes == 0 {
            let start = Int(node.start), end = start + Int(node.length)
            var special = false
            for position in start..<end
            where tape.bytes[position] == UInt8(ascii: "@") || tape.bytes[position] == UInt8(ascii: ":") {
                special = true
            }
            if !special { return false }
        }
        let name = tape.string(index)
        return name.hasPrefix("@") || MemberName.isExtensionMember(name)
    }

    /// Throws what ``relationship(_:)`` throws.
    private func checkRelationship(_ index: Int) throws(Failure) {
        try expectObject(index)
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            switch relationshipMember(key) {
            case .data: try checkLinkage(value)
            case .links: if tape.kind(value) != .null { try checkLinks(value) }
            case .meta: try checkOptionalObject(value)
            case nil: break
            }
            key = tape.skip(value)
        }
    }

    /// The members of a relationship object that reading reads.
    private enum RelationshipMember: String {
        case data, links, meta
    }

    /// Which of them the key at `key` names, if any: by length first, as ``ResourceMembers/fixedMember(_:in:)``.
    @inline(__always)
    private func relationshipMember(_ key: Int) -> RelationshipMember? {
        let node = tape.nodes[key]
        guard node.flags & JSONTape.stringHasEscapes == 0 else { return RelationshipMember(rawValue: tape.string(key)) }
        switch node.length {
        case 4: return tape.keyBytesEqual(key, "data") ? .data : tape.keyBytesEqual(key, "meta") ? .meta : nil
        case 5: return tape.keyBytesEqual(key, "links") ? .links : nil
        default: return nil
        }
    }

    /// Throws what ``linkage(_:)`` throws.
    private func checkLinkage(_ index: Int) throws(Failure) {
        switch tape.kind(index) {
        case .null: return
        case .object: try checkIdentifier(index)
        case .array: try forEachElement(index) { element throws(Failure) in try checkIdentifier(element) }
        default: throw mismatch(index, expected: "an object, an array or null")
        }
    }

    /// Throws what ``identifier(_:)`` throws.
    func checkIdentifier(_ index: Int) throws(Failure) {
        try expectObject(index)
        var hasType = false, hasKey = false
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            switch ResourceMembers.fixedMember(key, in: tape) {
            case .type:
                try checkString(value)
                hasType = true
            case .id:
                try checkIdentifierString(value)
                hasKey = true
            case .lid:
                try checkString(value)
                hasKey = true
            case .meta: try checkOptionalObject(value)
            case .attributes, .relationships, .links, nil: break
            }
            key = tape.skip(value)
        }
        guard hasType else { throw missing("type", in: index) }
        guard hasKey else { throw missing("id", in: index) }
    }

    /// Throws what ``links(_:)`` throws.
    private func checkLinks(_ index: Int) throws(Failure) {
        try expectObject(index)
        var key = index + 1
        for _ in 0..<tape.count(index) {
            let value = key + 1
            if !isSpecialMember(key), tape.kind(value) != .null { try checkLink(value) }
            key = tape.skip(value)
        }
    }

    /// Throws what ``link(_:)`` throws.
    private func checkLink(_ index: Int) throws(Failure) {
        switch tape.kind(index) {
        case .string: return
        case .object:
            var hasHref = false
            var key = index + 1
            for _ in 0..<tape.count(index) {
                let value = key + 1
                let isNull = tape.kind(value) == .null
                switch tape.string(key) {
                case "href":
                    try checkString(value)
                    hasHref = true
                case "rel", "title", "type":
                    guard isNull || tape.kind(value) == .string else { throw mismatch(value, expected: "a string") }
                case "describedby": if !isNull { try checkLink(value) }
                case "hreflang":
                    switch tape.kind(value) {
                    case .null, .string: break
                    case .array:
                        try forEachElement(value) { element throws(Failure) in
                            guard tape.kind(element) == .string else { throw mismatch(element, expected: "a string") }
                        }
                    default: throw mismatch(value, expected: "a string or an array of strings")
                    }
                case "meta": if !isNull { try expectObject(value) }
                default: break
                }
                key = tape.skip(value)
            }
            guard hasHref else { throw missing("href", in: index) }
        default:
            throw mismatch(index, expected: "a string, a link object or null")
        }
    }
}
