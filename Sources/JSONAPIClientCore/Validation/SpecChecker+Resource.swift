/// The rules of resource objects, resource identifier objects, their fields, and relationship objects.
extension SpecChecker {
    /// Where a resource object appears.
    enum ResourceRole {
        /// Primary data that may be an identifier: a single object, or an element of an array of fieldless objects.
        case primary
        /// An element of a primary-data array in which some element has fields: a resource object, however it looks.
        case primaryResource
        case included
    }

    /// Which identifying member a resource object or identifier needs.
    enum IdentifierRule {
        /// `id` (a `lid` alone names only a resource the client is creating).
        case id
        /// `id`, or `lid` for a resource the client is creating.
        case idOrLid
        /// Neither: the resource a create request creates may leave its `id` to the server.
        case optional
    }

    /// A resource object (or, in a response's primary data, possibly a resource identifier object: the two look
    /// alike when a resource has no fields).
    mutating func resource(_ node: Int, role: ResourceRole) {
        guard requireObject(node, "a resource object") else { return }
        var type, id, lid, attributes, relationships, links, meta: Member?
        for member in members(of: node) {
            switch member.name {
            case "type": type = member
            case "id": id = member
            case "lid": lid = member
            case "attributes": attributes = member
            case "relationships": relationships = member
            case "links": links = member
            case "meta": meta = member
            default: otherMember(member, of: "a resource object")
            }
        }
        let rule: IdentifierRule =
            switch (kind, role) {
            case (.response, _), (.updateRequest, .primary), (.updateRequest, .primaryResource): .id
            case (.createRequest, .primary), (.createRequest, .primaryResource): .optional
            default: .idOrLid
            }
        let keys = identification(node, type: type, id: id, lid: lid, rule: rule, what: "a resource object")
        let handle: Int?
        if role == .primary, kind == .response, attributes == nil, relationships == nil, links == nil {
            // A resource identifier object, or a resource without fields: identifiers may repeat, and an included
            // resource object with the same key is the one it names.
            keys.forEach { linkage.addPrimaryIdentifier($0) }
            handle = nil
        } else {
            let added = linkage.addResource(keys: keys, included: role == .included, node: node, pointer: pointer)
            if let earlier = added.duplicateOf, let key = keys.first {
                report("resource \(key.description) must appear only once in a document (also at \(earlier))", node: node)
            }
            handle = added.handle
        }
        var attributeNames: Set<String> = []
        if let attributes { attributeNames = self.attributes(attributes) }
        if let relationships {
            self.relationships(relationships, from: handle, attributeNames: attributeNames, needData: kind.isRequest && role != .included)
        }
        if let links { self.links(links, allowed: ["self"], what: "a resource's links object") }
        if let meta { self.meta(meta) }
    }

    /// A resource identifier object (linkage, or a relationship request's primary data); returns the keys it names.
    mutating func identifier(_ node: Int) -> [LinkageGraph.Key] {
        guard requireObject(node, "a resource identifier object") else { return [] }
        var type, id, lid: Member?
        for member in members(of: node) {
            switch member.name {
            case "type": type = member
            case "id": id = member
            case "lid": lid = member
            case "meta": meta(member)
            default: otherMember(member, of: "a resource identifier object")
            }
        }
        let rule: IdentifierRule = kind == .createRequest || kind == .updateRequest ? .idOrLid : .id
        return identification(node, type: type, id: id, lid: lid, rule: rule, what: "a resource identifier object")
    }

    /// `type`, `id` and `lid`: strings, `type` a legal member name, `id` (or `lid`) present as `rule` says.
    /// Returns the keys the object is known by.
    private mutating func identification(
        _ node: Int, type: Member?, id: Member?, lid: Member?, rule: IdentifierRule, what: String
    ) -> [LinkageGraph.Key] {
        var typeValue: String?
        if let type {
            if let value = string(type.value) {
                typeValue = value
                if value.isEmpty {
                    report("type must not be empty", at: type)
                } else if !MemberName.isImplementationName(Substring(value)) {
                    report("type \"\(value)\" must obey the rules of member names (allowed characters)", at: type)
                }
            } else {
                report("type must be a string", at: type)
            }
        } else {
            report("\(what) must contain \"type\"", node: node)
        }
        var idValue: String?, lidValue: String?
        if let id {
            idValue = string(id.value)
            if idValue == nil { report("id must be a string", at: id) }
        }
        if let lid {
            lidValue = string(lid.value)
            if lidValue == nil { report("lid must be a string", at: lid) }
        }
        switch rule {
        case .id where id == nil:
            let note = lid == nil ? "" : " (\"lid\" names only a resource the client is creating)"
            report("\(what) must contain \"id\"\(note)", node: node)
        case .idOrLid where id == nil && lid == nil:
            report("\(what) must contain \"id\" (or \"lid\" for a resource the client is creating)", node: node)
        default:
            break
        }
        return LinkageGraph.keys(type: typeValue, id: idValue, lid: lidValue)
    }

    /// The attributes object; returns the names of its attributes.
    private mutating func attributes(_ member: Member) -> Set<String> {
        var names: Set<String> = []
        inside(member) { checker in
            guard checker.requireObject(member.value, "attributes") else { return }
            for field in checker.members(of: member.value) {
                if field.name.hasPrefix("@") {
                    // An @-member is not an attribute.
                } else if !MemberName.isLegal(field.name) {
                    checker.report("\"\(field.name)\" is not a legal member name", at: field)
                } else if field.name == "type" || field.name == "id" {
                    checker.report("a resource cannot have a field named \"\(field.name)\"", at: field)
                } else {
                    names.insert(field.name)
                }
                checker.inside(field) { $0.freeForm(field.value, checkingNames: true) }
            }
        }
        return names
    }

    /// The relationships object of the resource `handle` (`nil` when it is not tracked for linkage).
    private mutating func relationships(_ member: Member, from handle: Int?, attributeNames: Set<String>, needData: Bool) {
        inside(member) { checker in
            guard checker.requireObject(member.value, "relationships") else { return }
            for field in checker.members(of: member.value) {
                if field.name.hasPrefix("@") || MemberName.isExtensionMember(field.name) {
                    checker.inside(field) { $0.freeForm(field.value, checkingNames: false) }
                    continue
                }
                if !MemberName.isLegal(field.name) {
                    checker.report("\"\(field.name)\" is not a legal member name", at: field)
                } else if field.name == "type" || field.name == "id" {
                    checker.report("a resource cannot have a field named \"\(field.name)\"", at: field)
                } else if attributeNames.contains(field.name) {
                    checker.report(
                        "\"\(field.name)\" is both an attribute and a relationship; fields share one namespace", at: field)
                }
                checker.relationship(field, from: handle, needData: needData)
            }
        }
    }

    /// A relationship object.
    private mutating func relationship(_ member: Member, from handle: Int?, needData: Bool) {
        inside(member) { checker in
            guard checker.requireObject(member.value, "a relationship") else { return }
            var links, data, meta: Member?
            var hasExtensionMember = false
            for field in checker.members(of: member.value) {
                switch field.name {
                case "links": links = field
                case "data": data = field
                case "meta": meta = field
                default:
                    hasExtensionMember = hasExtensionMember || MemberName.isExtensionMember(field.name)
                    checker.otherMember(field, of: "a relationship object")
                }
            }
            if links == nil, data == nil, meta == nil, !hasExtensionMember {
                checker.report(
                    "a relationship object must contain at least one of \"links\", \"data\" or \"meta\"", node: member.value)
            } else if needData, data == nil {
                let request = checker.kind == .createRequest ? "a create" : "an update"
                checker.report(
                    "a relationship in \(request) request must contain \"data\" (the linkage the resource is to have)",
                    node: member.value)
            }
            if let links {
                checker.links(
                    links, allowed: ["self", "related", "first", "last", "prev", "next"],
                    what: "a relationship's links object", requiringOneOf: ["self", "related"])
            }
            if let data { checker.resourceLinkage(data, from: handle) }
            if let meta { checker.meta(meta) }
        }
    }

    /// Resource linkage: `null`, a resource identifier object, or an array of them.
    private mutating func resourceLinkage(_ member: Member, from handle: Int?) {
        let node = member.value
        inside(member) { checker in
            var targets: [LinkageGraph.Key] = []
            switch checker.tape.kind(node) {
            case .null: break
            case .object: targets = checker.identifier(node)
            case .array:
                for (position, element) in checker.elements(of: node).enumerated() {
                    checker.inside(element: position) { targets += $0.identifier(element) }
                }
            default: checker.report("resource linkage must be null, an object or an array", node: node)
            }
            if let handle { targets.forEach { checker.linkage.addLink(from: handle, to: $0) } }
        }
    }
}
