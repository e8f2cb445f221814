/// How your models' property names map to the document's member names.
///
/// The mapping runs from model to wire, for reading and writing alike: `.kebabCase` reads `viewCount` from
/// `view-count` and writes it there.
public struct KeyStrategy: Sendable {
    let transform: (any KeyMapping)?

    /// Names are used as they are.
    public static let useDefaultKeys = KeyStrategy(transform: nil)
    /// `viewCount` ↔ `view_count`.
    public static let snakeCase = KeyStrategy(transform: SeparatedWords(separator: "_"))
    /// `viewCount` ↔ `view-count` (the "dasherized" form many JSON:API servers use).
    public static let kebabCase = KeyStrategy(transform: SeparatedWords(separator: "-"))
    /// Your own mapping from a property name to a member name.
    ///
    /// - Parameter mapping: Maps a property name to a member name.
    /// - Returns: The strategy.
    public static func custom(_ mapping: some KeyMapping) -> KeyStrategy { KeyStrategy(transform: mapping) }

    /// The member name for a property name.
    ///
    /// - Parameter key: The property name.
    /// - Returns: The member name in the document.
    public func wireName(for key: String) -> String { transform?.wireName(for: key) ?? key }
}

/// A mapping from property names to member names, for ``KeyStrategy/custom(_:)``:
///
/// ```swift
/// struct Uppercased: KeyMapping {
///     func wireName(for propertyName: String) -> String { propertyName.uppercased() }
/// }
/// let decoder = JSONAPIDecoder(keyStrategy: .custom(Uppercased()))
/// ```
public protocol KeyMapping: Sendable {
    /// The member name for `propertyName`.
    func wireName(for propertyName: String) -> String
}

/// `.snakeCase` and `.kebabCase`: camel case split at each upper-case letter.
struct SeparatedWords: KeyMapping {
    let separator: Character

    func wireName(for propertyName: String) -> String { Self.separated(propertyName, by: separator) }

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
