/// The rules of links objects, links and link objects, and of error objects.
extension SpecChecker {
    /// A links object that may hold the links in `allowed` (and extension and `@`-members), and must hold one of
    /// `requiringOneOf` when that is not empty (or an extension member).
    mutating func links(_ member: Member, allowed: Set<String>, what: String, requiringOneOf: Set<String> = []) {
        inside(member) { checker in
            guard checker.requireObject(member.value, "links") else { return }
            var hasRequired = false
            for field in checker.members(of: member.value) {
                if allowed.contains(field.name) {
                    hasRequired = hasRequired || requiringOneOf.contains(field.name)
                    checker.link(field)
                } else if MemberName.isLegal(field.name), !field.name.hasPrefix("@"), !MemberName.isExtensionMember(field.name) {
                    checker.report("\(what) must not contain the link \"\(field.name)\"", at: field)
                    checker.inside(field) { $0.freeForm(field.value, checkingNames: false) }
                } else {
                    hasRequired = hasRequired || MemberName.isExtensionMember(field.name)
                    checker.otherMember(field, of: what)
                }
            }
            if !requiringOneOf.isEmpty, !hasRequired {
                let names = requiringOneOf.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
                checker.report("\(what) must contain \(names)", node: member.value)
            }
        }
    }

    /// A link: a string (a URI-reference), a link object, or `null`.
    private mutating func link(_ member: Member) {
        inside(member) { checker in
            switch checker.tape.kind(member.value) {
            case .null, .string: break
            case .object: checker.linkObject(member.value)
            default: checker.report("a link must be a string, a link object or null", node: member.value)
            }
        }
    }

    private mutating func linkObject(_ node: Int) {
        var href: Member?
        for field in members(of: node) {
            switch field.name {
            case "href": href = field
            case "rel", "title", "type":
                if string(field.value) == nil { report("\(field.name) must be a string", at: field) }
            case "describedby": link(field)
            case "hreflang":
                let kind = tape.kind(field.value)
                if kind != .string, kind != .array || elements(of: field.value).contains(where: { string($0) == nil }) {
                    report("hreflang must be a string or an array of strings", at: field)
                }
            case "meta": meta(field)
            default: otherMember(field, of: "a link object")
            }
        }
        if let href {
            if string(href.value) == nil { report("href must be a string", at: href) }
        } else {
            report("a link object must contain \"href\"", node: node)
        }
    }

    // MARK: Errors

    /// `errors`: an array of error objects.
    mutating func errors(_ member: Member) {
        inside(member) { checker in
            guard checker.tape.kind(member.value) == .array else {
                checker.report("\"errors\" must be an array of error objects", node: member.value)
                return
            }
            for (position, element) in checker.elements(of: member.value).enumerated() {
                checker.inside(element: position) { $0.error(element) }
            }
        }
    }

    /// An error object: at least one of its members, the textual ones strings, `source` with a JSON Pointer.
    private mutating func error(_ node: Int) {
        guard requireObject(node, "an error object") else { return }
        var isEmpty = true
        for member in members(of: node) {
            switch member.name {
            case "id", "status", "code", "title", "detail":
                isEmpty = false
                if string(member.value) == nil { report("\(member.name) must be a string", at: member) }
            case "links":
                isEmpty = false
                links(member, allowed: ["about", "type"], what: "an error's links object")
            case "source":
                isEmpty = false
                source(member)
            case "meta":
                isEmpty = false
                meta(member)
            default:
                otherMember(member, of: "an error object")
            }
        }
        if isEmpty {
            report(
                "an error object must contain at least one of \"id\", \"links\", \"status\", \"code\", \"title\", "
                    + "\"detail\", \"source\" or \"meta\"", node: node)
        }
    }

    /// An error's `source`: `pointer` (a JSON Pointer), `parameter` and `header`, all strings.
    private mutating func source(_ member: Member) {
        inside(member) { checker in
            guard checker.requireObject(member.value, "source") else { return }
            for field in checker.members(of: member.value) {
                switch field.name {
                case "pointer", "parameter", "header":
                    guard let value = checker.string(field.value) else {
                        checker.report("\(field.name) must be a string", at: field)
                        continue
                    }
                    if field.name == "pointer", !MemberName.isJSONPointer(value) {
                        checker.report(
                            "pointer must be a JSON Pointer (RFC 6901): empty or starting with \"/\", with \"~\" only "
                                + "as \"~0\" or \"~1\"", at: field)
                    }
                default:
                    checker.otherMember(field, of: "an error's source object")
                }
            }
        }
    }
}
