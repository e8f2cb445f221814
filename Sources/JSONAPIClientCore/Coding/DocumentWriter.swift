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
        for (name, member) in document.extensionMembers ?? [:] { members[name] = member }
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
        .object(
            links.members.mapValues { link in link.map(value(of:)) ?? .null }
                .merging(links.extensionMembers) { link, _ in link })
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

// MARK: - Straight to bytes

/// Writes the schema-less model as compact JSON with members in key order: the same bytes as writing
/// ``DocumentWriter/value(of:)-(RawDocument)`` with sorted keys, without building the intermediate `JSONValue` objects
/// (a dictionary per resource, relationship and identifier, each hashed again to be sorted).
///
/// Member names are written in sorted order by hand; each function lists them in that order.
extension DocumentWriter {
    static func write(_ document: RawDocument, into writer: inout JSONWriter) {
        // Extension members have names of any kind to sort among the fixed ones: rare enough to go the long way.
        guard document.extensionMembers == nil else { return writer.write(value(of: document), sortedKeys: true) }
        var object = ObjectWriter(&writer)
        if let data = document.data { object.member(#""data":"#, &writer) { write(data, into: &$0) } }
        if let errors = document.errors {
            object.member(#""errors":"#, &writer) { writer in writeArray(errors, into: &writer, write(_:into:)) }
        }
        if let included = document.included {
            object.member(#""included":"#, &writer) { writer in writeArray(included, into: &writer, write(_:into:)) }
        }
        if let jsonapi = document.jsonapi { object.member(#""jsonapi":"#, &writer) { write(jsonapi, into: &$0) } }
        if let links = document.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = document.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        object.close(&writer)
    }

    static func write(_ data: PrimaryData, into writer: inout JSONWriter) {
        switch data {
        case .null: writer.writeNull()
        case .resource(let resource): write(resource, into: &writer)
        case .resources(let resources): writeArray(resources, into: &writer, write(_:into:))
        case .identifier(let identifier): write(identifier, into: &writer)
        case .identifiers(let identifiers): writeArray(identifiers, into: &writer, write(_:into:))
        }
    }

    static func write(_ resource: ResourceObject, into writer: inout JSONWriter) {
        var object = ObjectWriter(&writer)
        if let attributes = resource.attributes {
            object.member(#""attributes":"#, &writer) { $0.write(.object(attributes), sortedKeys: true) }
        }
        if let id = resource.id { object.member(#""id":"#, &writer) { $0.writeString(id) } }
        if let lid = resource.lid { object.member(#""lid":"#, &writer) { $0.writeString(lid) } }
        if let links = resource.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = resource.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        if let relationships = resource.relationships {
            object.member(#""relationships":"#, &writer) { writer in
                writeSorted(relationships, into: &writer) { write($0, into: &$1) }
            }
        }
        object.member(#""type":"#, &writer) { $0.writeString(resource.type) }
        object.close(&writer)
    }

    static func write(_ identifier: ResourceIdentifier, into writer: inout JSONWriter) {
        var object = ObjectWriter(&writer)
        if let id = identifier.id { object.member(#""id":"#, &writer) { $0.writeString(id) } }
        if let lid = identifier.lid { object.member(#""lid":"#, &writer) { $0.writeString(lid) } }
        if let meta = identifier.meta {
            object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) }
        }
        object.member(#""type":"#, &writer) { $0.writeString(identifier.type) }
        object.close(&writer)
    }

    static func write(_ relationship: Relationship, into writer: inout JSONWriter) {
        var object = ObjectWriter(&writer)
        if let data = relationship.data {
            object.member(#""data":"#, &writer) { writer in
                switch data {
                case .toOne(let identifier?): write(identifier, into: &writer)
                case .toOne(nil): writer.writeNull()
                case .toMany(let identifiers): writeArray(identifiers, into: &writer, write(_:into:))
                }
            }
        }
        if let links = relationship.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = relationship.meta {
            object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) }
        }
        object.close(&writer)
    }

    static func write(_ links: Links, into writer: inout JSONWriter) {
        guard links.extensionMembers.isEmpty else { return writer.write(value(of: links), sortedKeys: true) }
        writeSorted(links.members, into: &writer) { link, writer in
            if let link { write(link, into: &writer) } else { writer.writeNull() }
        }
    }

    static func write(_ link: Link, into writer: inout JSONWriter) {
        if link.isPlain {
            writer.writeString(link.href)
            return
        }
        var object = ObjectWriter(&writer)
        if let describedBy = link.describedBy {
            object.member(#""describedby":"#, &writer) { write(describedBy, into: &$0) }
        }
        object.member(#""href":"#, &writer) { $0.writeString(link.href) }
        if let hreflang = link.hreflang {
            object.member(#""hreflang":"#, &writer) { writer in
                if hreflang.count == 1 {
                    writer.writeString(hreflang[0])
                } else {
                    writeArray(hreflang, into: &writer) { $1.writeString($0) }
                }
            }
        }
        if let meta = link.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        if let rel = link.rel { object.member(#""rel":"#, &writer) { $0.writeString(rel) } }
        if let title = link.title { object.member(#""title":"#, &writer) { $0.writeString(title) } }
        if let type = link.type { object.member(#""type":"#, &writer) { $0.writeString(type) } }
        object.close(&writer)
    }

    static func write(_ error: ErrorObject, into writer: inout JSONWriter) {
        var object = ObjectWriter(&writer)
        if let code = error.code { object.member(#""code":"#, &writer) { $0.writeString(code) } }
        if let detail = error.detail { object.member(#""detail":"#, &writer) { $0.writeString(detail) } }
        if let id = error.id { object.member(#""id":"#, &writer) { $0.writeString(id) } }
        if let links = error.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = error.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        if let source = error.source {
            object.member(#""source":"#, &writer) { writer in
                var sourceObject = ObjectWriter(&writer)
                if let header = source.header { sourceObject.member(#""header":"#, &writer) { $0.writeString(header) } }
                if let parameter = source.parameter {
                    sourceObject.member(#""parameter":"#, &writer) { $0.writeString(parameter) }
                }
                if let pointer = source.pointer {
                    sourceObject.member(#""pointer":"#, &writer) { $0.writeString(pointer) }
                }
                sourceObject.close(&writer)
            }
        }
        if let status = error.status { object.member(#""status":"#, &writer) { $0.writeString(status) } }
        if let title = error.title { object.member(#""title":"#, &writer) { $0.writeString(title) } }
        object.close(&writer)
    }

    static func write(_ jsonapi: JSONAPIObject, into writer: inout JSONWriter) {
        var object = ObjectWriter(&writer)
        if let ext = jsonapi.ext { object.member(#""ext":"#, &writer) { writeArray(ext, into: &$0) { $1.writeString($0) } } }
        if let meta = jsonapi.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        if let profile = jsonapi.profile {
            object.member(#""profile":"#, &writer) { writeArray(profile, into: &$0) { $1.writeString($0) } }
        }
        if let version = jsonapi.version { object.member(#""version":"#, &writer) { $0.writeString(version) } }
        object.close(&writer)
    }

    // MARK: Models straight to bytes

    /// A model's resource object, as ``write(_:into:)-(ResourceObject,_)`` writes `capture.resourceObject(type:)`.
    static func write(_ capture: ResourceCapture, type: String, into writer: inout JSONWriter) {
        let attributes = capture.orderedAttributes(), relationships = capture.orderedRelationships()
        var object = ObjectWriter(&writer)
        if !attributes.isEmpty || !relationships.isEmpty {
            object.member(#""attributes":"#, &writer) { writer in
                writer.append(UInt8(ascii: "{"))
                for (position, member) in attributes.enumerated() {
                    if position > 0 { writer.append(UInt8(ascii: ",")) }
                    writer.writeString(member.name)
                    writer.append(UInt8(ascii: ":"))
                    writer.write(member.value, sortedKeys: true)
                }
                writer.append(UInt8(ascii: "}"))
            }
        }
        if let id = capture.id { object.member(#""id":"#, &writer) { $0.writeString(id) } }
        if let lid = capture.lid { object.member(#""lid":"#, &writer) { $0.writeString(lid) } }
        if let links = capture.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = capture.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        if !relationships.isEmpty {
            object.member(#""relationships":"#, &writer) { writer in
                writer.append(UInt8(ascii: "{"))
                for (position, member) in relationships.enumerated() {
                    if position > 0 { writer.append(UInt8(ascii: ",")) }
                    writer.writeString(member.name)
                    writer.append(UInt8(ascii: ":"))
                    write(member.value, into: &writer)
                }
                writer.append(UInt8(ascii: "}"))
            }
        }
        object.member(#""type":"#, &writer) { $0.writeString(type) }
        object.close(&writer)
    }

    /// The members of a compound document after its primary data, which the caller wrote (`{"data":` and the
    /// models, straight into `writer`): the related resources (`related`, ranges of JSON text in `source`), then
    /// the rest of `document` (errors, included resource objects, jsonapi, links, meta) as
    /// ``write(_:into:)-(RawDocument,_)`` writes them, and the closing brace. `included` is left out when empty.
    static func writeMembersAfterData(
        of document: RawDocument, related: [Range<Int>], of source: borrowing JSONWriter, into writer: inout JSONWriter
    ) {
        var object = ObjectWriter.afterFirstMember()
        if let errors = document.errors {
            object.member(#""errors":"#, &writer) { writer in writeArray(errors, into: &writer, write(_:into:)) }
        }
        let included = document.included ?? []
        if !included.isEmpty || !related.isEmpty {
            object.member(#""included":"#, &writer) { writer in
                writer.append(UInt8(ascii: "["))
                for (position, resource) in included.enumerated() {
                    if position > 0 { writer.append(UInt8(ascii: ",")) }
                    write(resource, into: &writer)
                }
                for (position, text) in related.enumerated() {
                    if position > 0 || !included.isEmpty { writer.append(UInt8(ascii: ",")) }
                    writer.append(text, of: source)
                }
                writer.append(UInt8(ascii: "]"))
            }
        }
        if let jsonapi = document.jsonapi { object.member(#""jsonapi":"#, &writer) { write(jsonapi, into: &$0) } }
        if let links = document.links { object.member(#""links":"#, &writer) { write(links, into: &$0) } }
        if let meta = document.meta { object.member(#""meta":"#, &writer) { $0.write(.object(meta), sortedKeys: true) } }
        object.close(&writer)
    }

    // MARK: Helpers

    private static func writeArray<Element>(
        _ elements: [Element], into writer: inout JSONWriter, _ write: (Element, inout JSONWriter) -> Void
    ) {
        writer.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 { writer.append(UInt8(ascii: ",")) }
            write(element, &writer)
        }
        writer.append(UInt8(ascii: "]"))
    }

    /// An object whose members are a dictionary's, in key order.
    private static func writeSorted<Value>(
        _ members: [String: Value], into writer: inout JSONWriter, _ write: (Value, inout JSONWriter) -> Void
    ) {
        writer.append(UInt8(ascii: "{"))
        for (count, position) in JSONWriter.sortedPositions(members).enumerated() {
            if count > 0 { writer.append(UInt8(ascii: ",")) }
            let (key, value) = members[position]
            writer.writeString(key)
            writer.append(UInt8(ascii: ":"))
            write(value, &writer)
        }
        writer.append(UInt8(ascii: "}"))
    }

    /// Writes `{`, then members with commas between them, then `}`.
    private struct ObjectWriter {
        private var first = true

        init(_ writer: inout JSONWriter) { writer.append(UInt8(ascii: "{")) }

        private init() {}

        /// An object whose opening brace and first member were written already.
        static func afterFirstMember() -> ObjectWriter {
            var object = ObjectWriter()
            object.first = false
            return object
        }

        /// Writes the member's quoted name and colon (`name` includes both), then its value.
        mutating func member(_ name: StaticString, _ writer: inout JSONWriter, _ value: (inout JSONWriter) -> Void) {
            if !first { writer.append(UInt8(ascii: ",")) }
            first = false
            writer.writeRaw(name)
            value(&writer)
        }

        func close(_ writer: inout JSONWriter) { writer.append(UInt8(ascii: "}")) }
    }
}
