/// What a validated document is for: a server's response, or one of the bodies a client sends.
extension DocumentValidator {
    /// The role of a document, which decides the rules that apply beyond the ones every document obeys.
    ///
    /// | Kind | `data` must be | resource `id` |
    /// |---|---|---|
    /// | ``response`` | `data`, `errors` or `meta` (or a member of an applied extension) | required |
    /// | ``createRequest`` | one resource object | optional; `lid` allowed |
    /// | ``updateRequest`` | one resource object | required |
    /// | ``relationshipRequest`` | `null`, one resource identifier object, or an array of them | required |
    ///
    /// In a create or update request every relationship the resource carries must have `data` (the linkage it is to
    /// have); `links` or `meta` alone say nothing to the server.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// A server's response, whatever its status: the document must contain `data`, `errors` or `meta` (or a
        /// top-level member of an extension named in `jsonapi.ext`), and every resource object carries an `id`.
        case response
        /// The body of a `POST` that creates a resource: `data` is a single resource object with a `type`; its `id`
        /// (a client-generated ID) is optional and a `lid` may name it locally; each relationship has `data`.
        case createRequest
        /// The body of a `PATCH` that updates a resource: `data` is a single resource object with `type` and `id`;
        /// each relationship has `data`.
        case updateRequest
        /// The body of a `PATCH`, `POST` or `DELETE` to a relationship endpoint (`…/relationships/NAME`): `data` is
        /// `null`, a single resource identifier object, or an array of them (possibly empty), each with an `id`.
        case relationshipRequest

        /// Whether the document is a body a client sends.
        var isRequest: Bool { self != .response }
    }
}
