/// Reads an error document leniently, member by member, for the bodies of error responses: what a server says about
/// a failure is kept whatever else in the body is odd.
extension DocumentReader {
    /// The error document at the root: every element of `errors` (an object with one bad member keeps the others;
    /// a lone error object in place of the array counts as one), and `meta`, `links` and `jsonapi` when each can be
    /// read. Anything else, and a root that is not an object, gives an empty document; this never throws.
    func lenientErrorDocument() -> RawDocument {
        var document = RawDocument()
        guard tape.kind(0) == .object else { return document }
        var child = 1
        for _ in 0..<tape.count(0) {
            let value = child + 1
            switch tape.string(child) {
            case "errors":
                switch tape.kind(value) {
                case .array:
                    var errors: [ErrorObject] = []
                    var element = value + 1
                    for _ in 0..<tape.count(value) {
                        errors.append(lenientErrorObject(element))
                        element = tape.skip(element)
                    }
                    document.errors = errors
                case .object: document.errors = [lenientErrorObject(value)]
                default: break
                }
            case "meta": document.meta = try? optionalMeta(value)
            case "links":
                var unread: [String: JSONValue] = [:]
                document.links = lenientLinks(value, at: "/links", unread: &unread)
            case "jsonapi": document.jsonapi = tape.kind(value) == .null ? nil : try? jsonapiObject(value)
            default: break
            }
            child = tape.skip(value)
        }
        return document
    }

    /// The error object at `index`; a member of the wrong shape goes to ``ErrorObject/unreadMembers`` (a links or
    /// source member alone, not the whole `links` or `source`). Members the specification does not define are
    /// ignored, as it asks.
    func lenientErrorObject(_ index: Int) -> ErrorObject {
        var object = ErrorObject()
        guard tape.kind(index) == .object else {
            object.unreadMembers[""] = value(index)
            return object
        }
        var child = index + 1
        for _ in 0..<tape.count(index) {
            let member = child + 1
            let name = tape.string(child)
            let pointer = "/" + JSONTape.escapePointerToken(name)
            func read<Value>(_ body: (Int) throws(Failure) -> Value?) -> Value? {
                do throws(Failure) {
                    return try body(member)
                } catch {
                    object.unreadMembers[pointer] = value(member)
                    return nil
                }
            }
            switch name {
            case "id": object.id = read { index throws(Failure) in try optionalIdentifier(index) }
            case "status": object.status = read { index throws(Failure) in try optionalIdentifier(index) }
            case "code": object.code = read { index throws(Failure) in try optionalIdentifier(index) }
            case "title": object.title = read { index throws(Failure) in try optionalString(index) }
            case "detail": object.detail = read { index throws(Failure) in try optionalString(index) }
            case "meta": object.meta = read { index throws(Failure) in try optionalMeta(index) }
            case "links": object.links = lenientLinks(member, at: pointer, unread: &object.unreadMembers)
            case "source": object.source = lenientSource(member, at: pointer, unread: &object.unreadMembers)
            default: break
            }
            child = tape.skip(member)
        }
        return object
    }

    /// A links object, link by link: a link that cannot be read is put in `unread` under `pointer/name`.
    private func lenientLinks(_ index: Int, at pointer: String, unread: inout [String: JSONValue]) -> Links? {
        switch tape.kind(index) {
        case .null: return nil
        case .object: break
        default:
            unread[pointer] = value(index)
            return nil
        }
        var links = Links()
        var child = index + 1
        for _ in 0..<tape.count(index) {
            let member = child + 1
            let name = tape.string(child)
            if tape.kind(member) == .null {
                links.members[name] = .some(nil)
            } else if let link = try? link(member) {
                links.members[name] = link
            } else {
                unread[pointer + "/" + JSONTape.escapePointerToken(name)] = value(member)
            }
            child = tape.skip(member)
        }
        return links
    }

    /// An error's `source`, member by member: one that is not a string is put in `unread` under `pointer/name`.
    private func lenientSource(_ index: Int, at pointer: String, unread: inout [String: JSONValue])
        -> ErrorObject.Source?
    {
        switch tape.kind(index) {
        case .null: return nil
        case .object: break
        default:
            unread[pointer] = value(index)
            return nil
        }
        var source = ErrorObject.Source()
        var child = index + 1
        for _ in 0..<tape.count(index) {
            let member = child + 1
            let name = tape.string(child)
            let field: WritableKeyPath<ErrorObject.Source, String?>? =
                switch name {
                case "pointer": \.pointer
                case "parameter": \.parameter
                case "header": \.header
                default: nil
                }
            if let field {
                switch tape.kind(member) {
                case .string: source[keyPath: field] = tape.string(member)
                case .null: source[keyPath: field] = nil
                default: unread[pointer + "/" + JSONTape.escapePointerToken(name)] = value(member)
                }
            }
            child = tape.skip(member)
        }
        return source
    }

    /// A string or a number read as its text (as `id`, `status` and `code` are); `null` is absent.
    private func optionalIdentifier(_ index: Int) throws(Failure) -> String? {
        tape.kind(index) == .null ? nil : try identifierString(index)
    }
}
