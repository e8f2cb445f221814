/// How your models' property names map to the document's member names.
///
/// The mapping runs from model to wire, for reading and writing alike: `.kebabCase` reads `viewCount` from
/// `view-count` and writes it there.
public struct KeyStrategy: Sendable {
    let transform: (@Sendable (String) -> String)?

    /// Names are used as they are.
    public static let useDefaultKeys = KeyStrategy(transform: nil)
    /// `viewCount` ↔ `view_count`.
    public static let snakeCase = KeyStrategy(transform: { separated($0, by: "_") })
    /// `viewCount` ↔ `view-count` (the "dasherized" form many JSON:API servers use).
    public static let kebabCase = KeyStrategy(transform: { separated($0, by: "-") })
    /// Your own mapping from a property name to a member name.
    public static func custom(_ transform: @escaping @Sendable (String) -> String) -> KeyStrategy {
        KeyStrategy(transform: transform)
    }

    /// The member name for a property name.
    public func wireName(for key: String) -> String { transform?(key) ?? key }

    /// Splits camel case at each upper-case letter: `viewCountURL` → `view_count_url`.
    static func separated(_ key: String, by separator: Character) -> String {
        guard key.contains(where: \.isUppercase) else { return key }
        var result = ""
        var previousWasLower = false
        for character in key {
            if character.isUppercase {
                if previousWasLower { result.append(separator) }
                result += character.lowercased()
                previousWasLower = false
            } else {
                result.append(character)
                previousWasLower = character.isLowercase || character.isNumber
            }
        }
        return result
    }
}

/// Member names for property names under one strategy, each worked out once per decode or encode.
struct WireNames {
    private var cache: [String: String] = [:]

    /// The member name found before for `key`.
    func cached(_ key: String) -> String? { cache[key] }

    /// Remembers `name` as the member name for `key`.
    mutating func remember(_ name: String, for key: String) { cache[key] = name }
}
