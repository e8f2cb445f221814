import Foundation

extension JSONTape {
    /// The JSON Pointer (RFC 6901) of the value at `target`, found by descending from the root.
    ///
    /// Only errors need pointers, so none are kept while decoding; finding one costs a walk down one path.
    func pointer(to target: Int) -> String {
        var pointer = ""
        var index = 0
        while index != target, index < nodes.count {
            let node = nodes[index]
            var child = index + 1
            var found = false
            switch node.kind {
            case .object:
                for _ in 0..<Int(node.count) {
                    let value = child + 1
                    let after = skip(value)
                    if target >= child, target < after {
                        pointer += "/" + Self.escapePointerToken(string(child))
                        index = target == child ? target : value
                        found = true
                        break
                    }
                    child = after
                }
            case .array:
                for position in 0..<Int(node.count) {
                    let after = skip(child)
                    if target >= child, target < after {
                        pointer += "/\(position)"
                        index = child
                        found = true
                        break
                    }
                    child = after
                }
            default:
                break
            }
            if !found { break }
        }
        return pointer
    }

    /// Escapes `~` and `/` in one reference token.
    static func escapePointerToken(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// "an object", "a string", … for error messages.
    func describe(_ index: Int) -> String {
        switch kind(index) {
        case .null: "null"
        case .true, .false: "a Boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
