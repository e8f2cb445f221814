/// The syntax rules of JSON:API 1.1 for member names, `type` values, extension members and JSON Pointers.
enum MemberName {
    /// Whether `name` is a legal member name anywhere: an implementation member name, an extension member
    /// (`ns:name`) or an `@`-member.
    static func isLegal(_ name: String) -> Bool {
        name.hasPrefix("@") || isExtensionMember(name) || isImplementationName(Substring(name))
    }

    /// Whether `name` is an implementation-defined member name ("Member Names"): at least one character, only the
    /// allowed ones, and a globally allowed character (`a-z`, `A-Z`, `0-9`, U+0080 and above) first and last; `-`,
    /// `_` and space only inside. A `type` value obeys the same rule.
    static func isImplementationName(_ name: Substring) -> Bool {
        let scalars = name.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isGloballyAllowed(first), isGloballyAllowed(last)
        else { return false }
        return scalars.allSatisfy { isGloballyAllowed($0) || $0 == "-" || $0 == "_" || $0 == " " }
    }

    /// Whether `name` is an extension member: a namespace of ASCII letters and digits, a colon, and an
    /// implementation member name.
    static func isExtensionMember(_ name: String) -> Bool {
        guard let colon = name.firstIndex(of: ":") else { return false }
        let namespace = name[..<colon]
        return isNamespace(namespace) && isImplementationName(name[name.index(after: colon)...])
    }

    /// Whether `namespace` is a legal extension namespace: at least one character, only `a-z`, `A-Z`, `0-9`.
    static func isNamespace(_ namespace: Substring) -> Bool {
        !namespace.isEmpty && namespace.unicodeScalars.allSatisfy(isASCIIAlphanumeric)
    }

    /// The namespace of an extension member, e.g. `atomic` for `atomic:results`.
    static func namespace(of name: String) -> Substring? {
        guard isExtensionMember(name), let colon = name.firstIndex(of: ":") else { return nil }
        return name[..<colon]
    }

    /// Whether `text` is a JSON Pointer (RFC 6901): empty, or reference tokens each after a `/`, in which `~` only
    /// appears as `~0` or `~1`.
    static func isJSONPointer(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next() else { return true }
        guard first == "/" else { return false }
        while let scalar = scalars.next() {
            if scalar == "~" {
                guard let escaped = scalars.next(), escaped == "0" || escaped == "1" else { return false }
            }
        }
        return true
    }

    private static func isGloballyAllowed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 || isASCIIAlphanumeric(scalar)
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
