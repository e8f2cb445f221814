import Foundation

extension WriteQueue {
    /// An entry as storage keeps it: as JSON, one row of the database (``WriteQueueDatabase``).
    struct StoredEntry: Codable {
        var id: String
        var method: String
        var url: String
        var type: String
        var resourceID: String
        var attempts: Int
        var created: Date
        var body: Data?
        var headerFields: [[String]]
        var kind: ResourceStore.PendingKind
        var optimistic: Bool
        var clientGeneratedID: Bool
        var sent: Bool
        /// Whether it is held until the app retries it (absent in files of earlier versions of the library).
        var failing: Bool?
        /// The owner's digest (``CredentialDigest/description``), never the credentials.
        var owner: String?
        /// A relationship endpoint's relationship, and what the store shows of the write (absent in entries of
        /// earlier versions of the library, and for other writes).
        var relationship: String?
        var shown: Data?
        /// When the server said it may be sent again (absent in entries of earlier versions, and when it did not).
        var notBefore: Date?

        init(_ entry: WriteQueue.Entry) {
            id = entry.id
            method = entry.method.rawValue
            url = entry.url.absoluteString
            type = entry.type
            resourceID = entry.resourceID
            attempts = entry.attempts
            created = entry.created
            body = entry.body
            headerFields = entry.headerFields.map { [$0.name.rawName, $0.value] }
            kind = entry.kind
            optimistic = entry.optimistic
            clientGeneratedID = entry.clientGeneratedID
            sent = entry.sent
            failing = entry.isFailing
            owner = entry.owner?.description
            relationship = entry.relationship
            shown = entry.shown
            notBefore = entry.notBefore
        }

        func entry() throws(RowCodec.Unreadable) -> WriteQueue.Entry {
            guard let url = URL(string: url), headerFields.allSatisfy({ $0.count == 2 }) else {
                throw RowCodec.Unreadable(reason: "entry \(id) has an invalid URL or header field", offset: 0)
            }
            var entry = WriteQueue.Entry(
                method: HTTPMethod(rawValue: method), url: url, type: type, resourceID: resourceID, body: body,
                headerFields: HTTPFields(headerFields.map { HTTPField(name: HTTPField.Name($0[0]), value: $0[1]) }),
                kind: kind, clientGeneratedID: clientGeneratedID, id: id, attempts: max(attempts, 0), created: created,
                optimistic: optimistic)
            entry.sent = sent
            entry.isFailing = failing ?? false
            entry.relationship = relationship
            entry.shown = shown
            entry.notBefore = notBefore
            if let owner {
                guard let digest = CredentialDigest(owner) else {
                    throw RowCodec.Unreadable(reason: "entry \(id) has an invalid owner", offset: 0)
                }
                entry.owner = digest
            }
            return entry
        }
    }
}
