/// Turns the schema-less model into JSON values, the way the specification writes them.
///
/// Absent members stay absent; a link with nothing but `href` is written as a plain string; an empty to-many
/// relationship is `[]`, never `null`.
enum DocumentWriter {
    static func value(of document: RawDocument) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let data = document.data { members["data"] = value(of: data) }
        if let included = document.included { members["included"] = .array(included.map(value(of:))) }
        if let meta = document.meta { members["meta"] = .object(meta) }
        if let links = document.links { members["links"] = value(of: links) }
        if let jsonapi = document.jsonapi { members["jsonapi"] = value(of: jsonapi) }
        if let errors = document.errors { members["errors"] = .array(errors.map(value(of:))) }
        return .object(members)
    }

    static func value(of data: PrimaryData) -> JSONValue {
        switch data {
        case .null: .null
        case .resource(let resource): value(of: resource)
        case .resources(let resources): .array(resources.map(value(of:)))
        case .identifier(let identifier): value(of: identifier)
        case .identifiers(let identifiers): .array(identifiers.map(value(of:)))
        }
    }

    static func value(of resource: ResourceObject) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string(resource.type)]
        if let id = resource.id { members["id"] = .string(id) }
        if let lid = resource.lid { members["lid"] = .string(lid) }
        if let attributes = resource.attributes { members["attributes"] = .object(attributes) }
        if let relationships = resource.relationships {
            members["relationships"] = .object(relationships.mapValues(value(of:)))
        }
        if let links = resource.links { members["links"] = value(of: links) }
        if let meta = resource.meta { members["meta"] = .object(meta) }
        return .object(members)
    }

    static func value(of identifier: ResourceIdentifier) -> JSONValue {
        var members: [String: JSONValue] = ["type": .string(identifier.type)]
        if let id = identifier.id { members["id"] = .string(id) }
        if let lid = identifier.lid { members["lid"] = .string(lid) }
        if let meta = identifier.meta { members["meta"] = .object(meta) }
        return .object(members)
    }

    static func value(of relationship: Relationship) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let data = relationship.data { members["data"] = value(of: data) }
        if let links = relationship.links { members["links"] = value(of: links) }
        if let meta = relationship.meta { members["meta"] = .object(meta) }
        return .object(members)
    }

    static func value(of linkage: Linkage) -> JSONValue {
        switch linkage {
        case .toOne(let identifier): identifier.map(value(of:)) ?? .null
        case .toMany(let identifiers): .array(identifiers.map(value(of:)))
        }
    }

    static func value(of links: Links) -> JSONValue {
        .object(links.members.mapValues { link in link.map(value(of:)) ?? .null })
    }

    static func value(of link: Link) -> JSONValue {
        if link.isPlain { return .string(link.href) }
        var members: [String: JSONValue] = ["href": .string(link.href)]
        if let rel = link.rel { members["rel"] = .string(rel) }
        if let describedBy = link.describedBy { members["describedby"] = value(of: describedBy) }
        if let title = link.title { members["title"] = .string(title) }
        if let type = link.type { members["type"] = .string(type) }
        if let hreflang = link.hreflang {
            members["hreflang"] = hreflang.count == 1 ? .string(hreflang[0]) : .array(hreflang.map(JSONValue.string))
        }
        if let meta = link.meta { members["meta"] = .object(meta) }
        return .object(members)
    }

    static func value(of error: ErrorObject) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let id = error.id { members["id"] = .string(id) }
        if let links = error.links { members["links"] = value(of: links) }
        if let status = error.status { members["status"] = .string(status) }
        if let code = error.code { members["code"] = .string(code) }
        if let title = error.title { members["title"] = .string(title) }
        if let detail = error.detail { members["detail"] = .string(detail) }
        if let source = error.source {
            var sourceMembers: [String: JSONValue] = [:]
            if let pointer = source.pointer { sourceMembers["pointer"] = .string(pointer) }
            if let parameter = source.parameter { sourceMembers["parameter"] = .string(parameter) }
            if let header = source.header { sourceMembers["header"] = .string(header) }
            members["source"] = .object(sourceMembers)
        }
        if let meta = error.meta { members["meta"] = .object(meta) }
        return .object(members)
    }

    static func value(of jsonapi: JSONAPIObject) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if let version = jsonapi.version { members["version"] = .string(version) }
        if let ext = jsonapi.ext { members["ext"] = .array(ext.map(JSONValue.string)) }
        if let profile = jsonapi.profile { members["profile"] = .array(profile.map(JSONValue.string)) }
        if let meta = jsonapi.meta { members["meta"] = .object(meta) }
        return .object(members)
    }
}
