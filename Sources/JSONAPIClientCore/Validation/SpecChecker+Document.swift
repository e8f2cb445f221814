/// The rules of the top level: which members a document has, its primary data by kind, `included`, `jsonapi`,
/// and full linkage once the whole document has been seen.
extension SpecChecker {
    /// The extensions a document names in `jsonapi.ext`, as the namespaces their members use.
    struct AppliedExtensions {
        /// Namespaces known from the URIs of official extensions (`https://jsonapi.org/ext/atomic` → `atomic`).
        var namespaces: Set<Substring> = []
        /// Whether an extension with another URI is applied: its namespace cannot be known, so any counts.
        var anyNamespace = false

        /// Adds the extension at `uri`.
        mutating func add(_ uri: String) {
            for prefix in ["https://jsonapi.org/ext/", "http://jsonapi.org/ext/"] where uri.hasPrefix(prefix) {
                var name = uri.dropFirst(prefix.count)
                if name.hasSuffix("/") { name = name.dropLast() }
                if MemberName.isNamespace(name) {
                    namespaces.insert(name)
                    return
                }
            }
            anyNamespace = true
        }

        /// Whether the extension member `name` belongs to an applied extension.
        func applies(to name: String) -> Bool {
            guard let namespace = MemberName.namespace(of: name) else { return false }
            return anyNamespace || namespaces.contains(namespace)
        }
    }

    /// Checks the whole document.
    mutating func checkDocument() {
        guard tape.kind(0) == .object else {
            report("a document must be a JSON object", node: 0)
            return
        }
        var data, errors, meta, jsonapi, links, included: Member?
        var extensionMembers: [Member] = []
        for member in members(of: 0) {
            switch member.name {
            case "data": data = member
            case "errors": errors = member
            case "meta": meta = member
            case "jsonapi": jsonapi = member
            case "links": links = member
            case "included": included = member
            default:
                if MemberName.isExtensionMember(member.name) { extensionMembers.append(member) }
                otherMember(member, of: "a document")
            }
        }
        let applied = jsonapi.map { self.jsonapi($0) } ?? AppliedExtensions()
        if kind.isRequest {
            if data == nil { report("a request document must contain \"data\"", node: 0) }
        } else if data == nil, errors == nil, meta == nil, !extensionMembers.contains(where: { applied.applies(to: $0.name) }) {
            var message = "a document must contain at least one of \"data\", \"errors\", \"meta\" or a member of an applied extension"
            if let member = extensionMembers.first {
                message += " (\"\(member.name)\" counts when its extension is named in jsonapi.ext)"
            }
            report(message, node: 0)
        }
        if data != nil, let errors {
            report("\"data\" and \"errors\" must not coexist in the same document", at: errors)
        }
        if data == nil, let included {
            report("\"included\" must not be present without \"data\"", at: included)
        }
        if let data { primaryData(data) }
        if let included { self.included(included) }
        if let errors { self.errors(errors) }
        if let meta { self.meta(meta) }
        if let links {
            self.links(
                links, allowed: ["self", "related", "describedby", "first", "last", "prev", "next"],
                what: "the top-level links object")
        }
        fullLinkage()
    }

    /// `data`: what it may hold depends on the kind of document.
    private mutating func primaryData(_ member: Member) {
        let node = member.value
        let kind = tape.kind(node)
        inside(member) { checker in
            switch (checker.kind, kind) {
            case (.response, .null), (.relationshipRequest, .null):
                break
            case (.response, .object), (.createRequest, .object), (.updateRequest, .object):
                checker.resource(node, role: .primary)
            case (.response, .array):
                // As the decoder reads it: identifiers only when no element has fields, else all resources.
                let role: ResourceRole = checker.tape.elementsAreIdentifierOnly(node) ? .primary : .primaryResource
                for (position, element) in checker.elements(of: node).enumerated() {
                    checker.inside(element: position) { $0.resource(element, role: role) }
                }
            case (.relationshipRequest, .object):
                checker.primaryIdentifier(node)
            case (.relationshipRequest, .array):
                for (position, element) in checker.elements(of: node).enumerated() {
                    checker.inside(element: position) { $0.primaryIdentifier(element) }
                }
            case (.response, _):
                checker.report("primary data must be null, an object or an array", node: node)
            case (.createRequest, _), (.updateRequest, _):
                let request = checker.kind == .createRequest ? "a create" : "an update"
                checker.report("the primary data of \(request) request must be a single resource object", node: node)
            case (.relationshipRequest, _):
                checker.report(
                    "the primary data of a relationship request must be null, a resource identifier object or an "
                        + "array of them", node: node)
            }
        }
    }

    /// A resource identifier object as the primary data of a relationship request.
    private mutating func primaryIdentifier(_ node: Int) {
        for key in identifier(node) { linkage.addPrimaryIdentifier(key) }
    }

    /// `included`: an array of resource objects.
    private mutating func included(_ member: Member) {
        let node = member.value
        inside(member) { checker in
            guard checker.tape.kind(node) == .array else {
                let null = checker.tape.kind(node) == .null ? ", not null (leave the member out instead)" : ""
                checker.report("\"included\" must be an array of resource objects\(null)", node: node)
                return
            }
            for (position, element) in checker.elements(of: node).enumerated() {
                checker.inside(element: position) { $0.resource(element, role: .included) }
            }
        }
    }

    /// The `jsonapi` object; returns the extensions it names.
    private mutating func jsonapi(_ member: Member) -> AppliedExtensions {
        var applied = AppliedExtensions()
        inside(member) { checker in
            guard checker.requireObject(member.value, "jsonapi") else { return }
            for field in checker.members(of: member.value) {
                switch field.name {
                case "version":
                    if checker.string(field.value) == nil { checker.report("version must be a string", at: field) }
                case "ext", "profile":
                    let uris = checker.tape.kind(field.value) == .array ? checker.elements(of: field.value).map(checker.string) : [nil]
                    if uris.contains(nil) {
                        checker.report("\(field.name) must be an array of URIs", at: field)
                    } else if field.name == "ext" {
                        uris.compactMap { $0 }.forEach { applied.add($0) }
                    }
                case "meta": checker.meta(field)
                default: checker.otherMember(field, of: "the jsonapi object")
                }
            }
        }
        return applied
    }

    /// Full linkage: every included resource is reached from primary data through relationships.
    private mutating func fullLinkage() {
        for resource in linkage.unlinkedIncluded() {
            report(
                "included resource \(resource.key.description) is not reached by a chain of relationships from primary "
                    + "data (full linkage; only a relationship left out by a sparse fieldset excuses this)",
                node: resource.node, pointer: resource.pointer)
        }
    }
}
