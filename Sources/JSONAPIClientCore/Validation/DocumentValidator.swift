import Foundation

/// One way a document breaks a MUST rule of the JSON:API specification.
public struct SpecViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where: a JSON Pointer into the document.
    public var pointer: String
    /// What rule is broken.
    public var message: String

    /// Creates a violation.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `POINTER: message`, with `/` for the whole document.
    public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

/// Checks a document against the MUST-level rules of JSON:API 1.1 and reports every violation, each with its
/// pointer — where decoding stops at the first problem (and is lenient where the meaning is plain), validation
/// goes on and is strict.
///
/// ```swift
/// let violations = try DocumentValidator.validate(data)
/// for violation in violations { print(violation) }   // "/data/0/id: id must be a string"
/// ```
public enum DocumentValidator {
    /// The violations in the JSON document `data`; empty when it is valid. Throws ``JSONAPIDecodingError`` when the
    /// bytes are not JSON at all.
    public static func validate(_ data: Data) throws(JSONAPIDecodingError) -> [SpecViolation] {
        let bytes = [UInt8](data)
        let tape: JSONTape
        do {
            tape = try JSONTape(parsing: bytes)
        } catch {
            throw JSONAPIDecodingError(parseError: error)
        }
        return validate(JSONValue(tape: tape, index: 0))
    }

    /// The violations in a parsed JSON value; empty when it is a valid document.
    public static func validate(_ document: JSONValue) -> [SpecViolation] {
        var checker = Checker()
        checker.document(document)
        return checker.violations
    }
}

private struct Checker {
    var violations: [SpecViolation] = []
    /// Identifiers of resources (primary and included) with where they were found.
    var resources: [ResourceKey: String] = [:]
    /// Identifiers that linkage refers to.
    var linked: Set<ResourceKey> = []
    var primaryKeys: Set<ResourceKey> = []

    mutating func report(_ pointer: String, _ message: String) {
        violations.append(SpecViolation(pointer: pointer, message: message))
    }

    static func token(_ name: String) -> String { JSONTape.escapePointerToken(name) }

    // MARK: Member names

    /// Whether `name` is a legal member name: extension (`ns:member`) and `@`-members are allowed as such.
    static func isLegalMemberName(_ name: String) -> Bool {
        if name.hasPrefix("@") { return true }
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 { return isPlainName(parts[0]) && isPlainName(parts[1]) }
        return parts.count == 1 && isPlainName(Substring(name))
    }

    static func isPlainName(_ name: Substring) -> Bool {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last else { return false }
        func isGlobal(_ scalar: Unicode.Scalar) -> Bool {
            scalar.value >= 0x80 || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || ("0"..."9").contains(scalar)
        }
        guard isGlobal(first), isGlobal(last) else { return false }
        return name.unicodeScalars.allSatisfy { isGlobal($0) || $0 == "-" || $0 == "_" || $0 == " " }
    }

    /// Reports members not in `allowed` (extension and `@`-members are always allowed) and illegal names.
    mutating func checkMembers(_ members: [String: JSONValue], at pointer: String, allowed: Set<String>, what: String) {
        for name in members.keys.sorted() {
            if name.hasPrefix("@") { continue }
            if !Self.isLegalMemberName(name) {
                report(pointer + "/" + Self.token(name), "\"\(name)\" is not a legal member name")
            } else if !allowed.contains(name), !name.contains(":") {
                report(pointer + "/" + Self.token(name), "\(what) must not contain the member \"\(name)\"")
            }
        }
    }

    /// Reports illegal member names anywhere inside free-form values (attributes, meta).
    mutating func checkNames(_ value: JSONValue, at pointer: String) {
        switch value {
        case .object(let members):
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if !Self.isLegalMemberName(name) {
                    report(pointer + "/" + Self.token(name), "\"\(name)\" is not a legal member name")
                }
                checkNames(member, at: pointer + "/" + Self.token(name))
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() { checkNames(element, at: pointer + "/\(index)") }
        default: break
        }
    }

    // MARK: Document

    mutating func document(_ value: JSONValue) {
        guard case .object(let members) = value else {
            report("", "a document must be a JSON object")
            return
        }
        checkMembers(
            members, at: "", allowed: ["data", "errors", "meta", "jsonapi", "links", "included"], what: "a document")
        if members["data"] == nil, members["errors"] == nil, members["meta"] == nil {
            report("", "a document must contain at least one of \"data\", \"errors\" or \"meta\"")
        }
        if members["data"] != nil, members["errors"] != nil {
            report("/errors", "\"data\" and \"errors\" must not coexist in the same document")
        }
        if members["included"] != nil, members["data"] == nil {
            report("/included", "\"included\" must not be present without \"data\"")
        }
        if let data = members["data"] { primaryData(data) }
        if let included = members["included"] {
            if case .array(let elements) = included {
                for (index, element) in elements.enumerated() { resource(element, at: "/included/\(index)", primary: false) }
            } else {
                report("/included", "\"included\" must be an array of resource objects")
            }
        }
        if let meta = members["meta"] { self.meta(meta, at: "/meta") }
        if let links = members["links"] {
            self.links(
                links, at: "/links",
                allowed: ["self", "related", "describedby", "first", "last", "prev", "next"])
        }
        if let jsonapi = members["jsonapi"] { self.jsonapi(jsonapi) }
        if let errors = members["errors"] {
            if case .array(let elements) = errors {
                for (index, element) in elements.enumerated() { error(element, at: "/errors/\(index)") }
            } else {
                report("/errors", "\"errors\" must be an array of error objects")
            }
        }
        fullLinkage(members)
    }

    /// Every included resource must be reachable by linkage from primary data or another resource.
    mutating func fullLinkage(_ members: [String: JSONValue]) {
        guard case .array(let included)? = members["included"] else { return }
        for (index, element) in included.enumerated() {
            guard let key = Self.key(of: element), !linked.contains(key), !primaryKeys.contains(key) else { continue }
            report(
                "/included/\(index)",
                "included resource \(key.type)/\(key.id) must be identified by linkage somewhere in the document (full linkage)")
        }
    }

    static func key(of value: JSONValue) -> ResourceKey? {
        guard case .string(let type)? = value["type"], case .string(let id)? = value["id"] else { return nil }
        return ResourceKey(type: type, id: id)
    }

    mutating func primaryData(_ data: JSONValue) {
        switch data {
        case .null: break
        case .object: resource(data, at: "/data", primary: true)
        case .array(let elements):
            for (index, element) in elements.enumerated() { resource(element, at: "/data/\(index)", primary: true) }
        default: report("/data", "primary data must be null, an object or an array")
        }
    }

    // MARK: Resources

    mutating func resource(_ value: JSONValue, at pointer: String, primary: Bool) {
        guard case .object(let members) = value else {
            report(pointer, "a resource object must be an object")
            return
        }
        checkMembers(
            members, at: pointer, allowed: ["type", "id", "lid", "attributes", "relationships", "links", "meta"],
            what: "a resource object")
        identification(members, at: pointer)
        if let key = Self.key(of: value) {
            if let first = resources[key] {
                report(pointer, "resource \(key.type)/\(key.id) must appear only once (also at \(first))")
            } else {
                resources[key] = pointer
            }
            if primary { primaryKeys.insert(key) }
        }
        var fieldNames: Set<String> = []
        if let attributes = members["attributes"] {
            if case .object(let fields) = attributes {
                for name in ["relationships", "links"] where fields[name] != nil {
                    report(pointer + "/attributes/" + name, "attributes must not contain a member named \"\(name)\"")
                }
                for name in ["type", "id"] where fields[name] != nil {
                    report(pointer + "/attributes/" + name, "a resource cannot have a field named \"\(name)\"")
                }
                checkNames(attributes, at: pointer + "/attributes")
                fieldNames.formUnion(fields.keys)
            } else {
                report(pointer + "/attributes", "attributes must be an object")
            }
        }
        if let relationships = members["relationships"] {
            if case .object(let fields) = relationships {
                for (name, relationship) in fields.sorted(by: { $0.key < $1.key }) {
                    let relationshipPointer = pointer + "/relationships/" + Self.token(name)
                    if !Self.isLegalMemberName(name) {
                        report(relationshipPointer, "\"\(name)\" is not a legal member name")
                    }
                    if name == "type" || name == "id" {
                        report(relationshipPointer, "a resource cannot have a field named \"\(name)\"")
                    }
                    if fieldNames.contains(name) {
                        report(relationshipPointer, "\"\(name)\" is both an attribute and a relationship; fields share one namespace")
                    }
                    self.relationship(relationship, at: relationshipPointer)
                }
            } else {
                report(pointer + "/relationships", "relationships must be an object")
            }
        }
        if let links = members["links"] { self.links(links, at: pointer + "/links", allowed: nil) }
        if let meta = members["meta"] { self.meta(meta, at: pointer + "/meta") }
    }

    /// `type` is a string; `id` (or, for a resource the client creates, `lid`) is a string.
    mutating func identification(_ members: [String: JSONValue], at pointer: String) {
        switch members["type"] {
        case nil: report(pointer, "a resource must contain the member \"type\"")
        case .string(let type)?: if type.isEmpty { report(pointer + "/type", "type must not be empty") }
        default: report(pointer + "/type", "type must be a string")
        }
        switch members["id"] {
        case nil:
            if members["lid"] == nil { report(pointer, "a resource must contain \"id\" (or \"lid\" when created by the client)") }
        case .string?: break
        default: report(pointer + "/id", "id must be a string")
        }
        if let lid = members["lid"], lid.stringValue == nil { report(pointer + "/lid", "lid must be a string") }
    }

    mutating func identifier(_ value: JSONValue, at pointer: String) {
        guard case .object(let members) = value else {
            report(pointer, "resource linkage must contain resource identifier objects")
            return
        }
        checkMembers(members, at: pointer, allowed: ["type", "id", "lid", "meta"], what: "a resource identifier object")
        identification(members, at: pointer)
        if let key = Self.key(of: value) { linked.insert(key) }
        if let meta = members["meta"] { self.meta(meta, at: pointer + "/meta") }
    }

    mutating func relationship(_ value: JSONValue, at pointer: String) {
        guard case .object(let members) = value else {
            report(pointer, "a relationship must be an object")
            return
        }
        checkMembers(members, at: pointer, allowed: ["links", "data", "meta"], what: "a relationship object")
        if members["links"] == nil, members["data"] == nil, members["meta"] == nil {
            report(pointer, "a relationship object must contain at least one of \"links\", \"data\" or \"meta\"")
        }
        if let links = members["links"] {
            self.links(
                links, at: pointer + "/links", allowed: ["self", "related", "first", "last", "prev", "next"],
                requireOne: ["self", "related"])
        }
        switch members["data"] {
        case nil, .null?: break
        case .object(let object)?: identifier(.object(object), at: pointer + "/data")
        case .array(let elements)?:
            for (index, element) in elements.enumerated() { identifier(element, at: pointer + "/data/\(index)") }
        default: report(pointer + "/data", "resource linkage must be null, an object or an array")
        }
        if let meta = members["meta"] { self.meta(meta, at: pointer + "/meta") }
    }

    // MARK: Links, meta, errors, jsonapi

    mutating func links(_ value: JSONValue, at pointer: String, allowed: Set<String>?, requireOne: Set<String> = []) {
        guard case .object(let members) = value else {
            report(pointer, "links must be an object")
            return
        }
        if let allowed {
            for name in members.keys.sorted() where !allowed.contains(name) && !name.contains(":") && !name.hasPrefix("@") {
                // Profiles and extensions may define more links; only names that are not legal are violations.
                if !Self.isLegalMemberName(name) { report(pointer + "/" + Self.token(name), "\"\(name)\" is not a legal member name") }
            }
        }
        if !requireOne.isEmpty, !members.keys.contains(where: { requireOne.contains($0) || $0.contains(":") }) {
            report(pointer, "a relationship's links must contain \"self\" or \"related\"")
        }
        for (name, link) in members.sorted(by: { $0.key < $1.key }) { self.link(link, at: pointer + "/" + Self.token(name)) }
    }

    mutating func link(_ value: JSONValue, at pointer: String) {
        switch value {
        case .null, .string: break
        case .object(let members):
            checkMembers(
                members, at: pointer, allowed: ["href", "rel", "describedby", "title", "type", "hreflang", "meta"],
                what: "a link object")
            switch members["href"] {
            case .string?: break
            case nil: report(pointer, "a link object must contain \"href\"")
            default: report(pointer + "/href", "href must be a string")
            }
            for name in ["rel", "title", "type"] {
                if let member = members[name], member.stringValue == nil {
                    report(pointer + "/" + name, "\(name) must be a string")
                }
            }
            if let describedBy = members["describedby"] { link(describedBy, at: pointer + "/describedby") }
            if let hreflang = members["hreflang"] {
                switch hreflang {
                case .string: break
                case .array(let elements) where elements.allSatisfy({ $0.stringValue != nil }): break
                default: report(pointer + "/hreflang", "hreflang must be a string or an array of strings")
                }
            }
            if let meta = members["meta"] { self.meta(meta, at: pointer + "/meta") }
        default:
            report(pointer, "a link must be a string, a link object or null")
        }
    }

    mutating func meta(_ value: JSONValue, at pointer: String) {
        guard case .object = value else {
            report(pointer, "meta must be an object")
            return
        }
        checkNames(value, at: pointer)
    }

    mutating func error(_ value: JSONValue, at pointer: String) {
        guard case .object(let members) = value else {
            report(pointer, "an error must be an object")
            return
        }
        checkMembers(
            members, at: pointer, allowed: ["id", "links", "status", "code", "title", "detail", "source", "meta"],
            what: "an error object")
        for name in ["id", "status", "code", "title", "detail"] {
            if let member = members[name], member.stringValue == nil {
                report(pointer + "/" + name, "\(name) must be a string")
            }
        }
        if let links = members["links"] { self.links(links, at: pointer + "/links", allowed: ["about", "type"]) }
        if let source = members["source"] {
            if case .object(let sourceMembers) = source {
                checkMembers(sourceMembers, at: pointer + "/source", allowed: ["pointer", "parameter", "header"], what: "an error source")
                for name in ["pointer", "parameter", "header"] {
                    if let member = sourceMembers[name], member.stringValue == nil {
                        report(pointer + "/source/" + name, "\(name) must be a string")
                    }
                }
            } else {
                report(pointer + "/source", "source must be an object")
            }
        }
        if let meta = members["meta"] { self.meta(meta, at: pointer + "/meta") }
    }

    mutating func jsonapi(_ value: JSONValue) {
        guard case .object(let members) = value else {
            report("/jsonapi", "jsonapi must be an object")
            return
        }
        checkMembers(members, at: "/jsonapi", allowed: ["version", "ext", "profile", "meta"], what: "the jsonapi object")
        if let version = members["version"], version.stringValue == nil {
            report("/jsonapi/version", "version must be a string")
        }
        for name in ["ext", "profile"] {
            guard let member = members[name] else { continue }
            guard case .array(let elements) = member, elements.allSatisfy({ $0.stringValue != nil }) else {
                report("/jsonapi/" + name, "\(name) must be an array of URIs")
                continue
            }
        }
        if let meta = members["meta"] { self.meta(meta, at: "/jsonapi/meta") }
    }
}
