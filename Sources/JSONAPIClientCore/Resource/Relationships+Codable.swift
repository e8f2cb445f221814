extension ToOne: Decodable where Target: Decodable {
    /// Reads the relationship object; with a coder other than the library's, the related resource stays `nil`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not what the type needs.
    public init(from decoder: any Decoder) throws {
        self.init(relationship: try Relationship(from: decoder))
    }

    init(relationship: Relationship) {
        switch relationship.data {
        case .toOne(let identifier)?:
            self.init(identifier: identifier, links: relationship.links, meta: relationship.meta)
        case .toMany(let identifiers)?:
            self.init(identifier: identifiers.first, links: relationship.links, meta: relationship.meta)
        case nil:
            self.init(identifier: nil, links: relationship.links, meta: relationship.meta, hasLinkage: false)
        }
    }
}

extension ToOne: Encodable where Target: Encodable {
    /// Writes the relationship object (linkage, links, meta).
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try Relationship(data: hasLinkage ? .toOne(identifier) : nil, links: links, meta: meta).encode(to: encoder)
    }
}

extension ToMany: Decodable where Target: Decodable {
    /// Reads the relationship object; with a coder other than the library's, `resources` stays empty.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not what the type needs.
    public init(from decoder: any Decoder) throws {
        self.init(relationship: try Relationship(from: decoder))
    }

    init(relationship: Relationship) {
        self.init(
            identifiers: relationship.data?.identifiers ?? [], links: relationship.links, meta: relationship.meta,
            hasLinkage: relationship.data != nil)
    }
}

extension ToMany: Encodable where Target: Encodable {
    /// Writes the relationship object (linkage, links, meta).
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try Relationship(data: hasLinkage ? .toMany(identifiers) : nil, links: links, meta: meta).encode(to: encoder)
    }
}

extension ToOne: RelationshipDecodable where Target: Decodable {
    init(relationshipAt index: Int, context: ResourceDecodingContext) throws {
        let relationship = try context.reader.relationship(index)
        guard case .toMany = relationship.data else {
            self.init(relationship: relationship)
            if let data = ResourceMembers.data(of: index, in: context.tape),
                context.tape.kind(data) == .object
            {
                resource = try context.decodeRelated(Target.self, at: data)
            }
            return
        }
        throw DecodingError.typeMismatch(
            ToOne.self, context.failure(at: index, expected: "to-one linkage (an object or null)", found: "an array"))
    }
}

extension ToMany: RelationshipDecodable where Target: Decodable {
    init(relationshipAt index: Int, context: ResourceDecodingContext) throws {
        let relationship = try context.reader.relationship(index)
        if case .toOne(let identifier?) = relationship.data {
            throw DecodingError.typeMismatch(
                ToMany.self,
                context.failure(at: index, expected: "to-many linkage (an array)", found: "\(identifier)"))
        }
        self.init(relationship: relationship)
        guard let data = ResourceMembers.data(of: index, in: context.tape), context.tape.kind(data) == .array
        else { return }
        var element = data + 1
        for _ in 0..<context.tape.count(data) {
            if let resource = try context.decodeRelated(Target.self, at: element) { resources.append(resource) }
            element = context.tape.skip(element)
        }
    }
}

extension ResourceDecodingContext {
    /// The related model for the identifier at `index`: decoded from `included` (failures there are errors), or
    /// from the identifier alone when the document does not include it, or `nil` when that is not enough.
    func decodeRelated<T: Decodable>(_ type: T.Type, at index: Int) throws -> T? {
        if resolve(index) != nil { return try decode(T.self, at: .linked(index)) }
        return try? decode(T.self, at: .linked(index))
    }
}
