/// A value that stands for one of several resource types — typically an enum over models — so that a member holding
/// it (or an array of it) is a polymorphic relationship.
///
/// Decoding reads the resource's `type` and picks the case; encoding writes the wrapped model.
///
/// ```swift
/// enum Attachment: PolymorphicResource {
///     case image(Image), video(Video)
///
///     init(from decoder: any Decoder) throws {
///         switch try decoder.resourceType() {
///         case Image.resourceType: self = .image(try Image(from: decoder))
///         case Video.resourceType: self = .video(try Video(from: decoder))
///         case let other: throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
///                                                           debugDescription: "unexpected type \(other)"))
///         }
///     }
///
///     var resource: any Resource {
///         switch self { case .image(let image): image; case .video(let video): video }
///     }
/// }
/// ```
public protocol PolymorphicResource: Codable, Sendable {
    /// The model this value holds.
    var resource: any Resource { get }
}

extension PolymorphicResource {
    /// Writes the wrapped model.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Any error the encoder throws.
    public func encode(to encoder: any Encoder) throws { try resource.encode(to: encoder) }
}

extension Decoder {
    /// The `type` of the resource being decoded: what a polymorphic model switches on.
    ///
    /// - Returns: The resource object's `type` member.
    /// - Throws: `DecodingError` when the resource has no string `type`.
    public func resourceType() throws -> String {
        try container(keyedBy: AnyCodingKey.self).decode(String.self, forKey: AnyCodingKey("type"))
    }
}
