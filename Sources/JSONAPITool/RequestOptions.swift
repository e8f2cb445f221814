import Foundation
import JSONAPIClient

/// What every command that talks to a server shares: the URL argument, `--header`, and a session that sends
/// `User-Agent: jsonapi/<version>`.
enum RequestOptions {
    /// The tool's version, which `--version` prints and `User-Agent` carries.
    static let version = "0.1.0"

    /// `--header` / `-H`.
    static let header = OptionSpec(
        long: "header", short: "H", value: "\"Name: value\"", help: "an extra request header (repeatable)")

    /// A session on `url`'s server that sends `User-Agent: jsonapi/<version>` (a `--header` replaces it).
    static func session(for url: URL, client: any Client) -> Session {
        Session(
            baseURL: url, client: client,
            configuration: .init(headerFields: [.userAgent: "jsonapi/\(version)"]))
    }

    /// The one URL argument, which must be `http` or `https` with a host.
    static func url(_ arguments: ParsedArguments, count: Int = 1) throws(UsageError) -> URL {
        guard let text = arguments.positionals.first else { throw UsageError(message: "missing URL") }
        if arguments.positionals.count > count {
            throw UsageError(message: "unexpected argument '\(arguments.positionals[count])'")
        }
        return try url(text)
    }

    /// `text` as an `http` or `https` URL with a host.
    static func url(_ text: String) throws(UsageError) -> URL {
        guard let parsed = URL(percentEncoding: text), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", parsed.host != nil
        else { throw UsageError(message: "'\(text)' is not an http or https URL") }
        return parsed
    }

    /// The `--header` values as fields.
    static func headers(_ arguments: ParsedArguments) throws(UsageError) -> HTTPFields {
        var fields = HTTPFields()
        for value in arguments.all(header.long) {
            guard let (name, fieldValue) = split(value, at: ":"), !name.trimmingCharacters(in: .whitespaces).isEmpty
            else { throw UsageError(message: "--header needs \"Name: value\", not '\(value)'") }
            fields.append(
                HTTPField(
                    name: HTTPField.Name(name.trimmingCharacters(in: .whitespaces)),
                    value: fieldValue.trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }

    /// `value` split at the first `separator`; `nil` when it has none.
    static func split(_ value: String, at separator: Character) -> (String, String)? {
        guard let mark = value.firstIndex(of: separator) else { return nil }
        return (String(value[..<mark]), String(value[value.index(after: mark)...]))
    }

    /// A comma-separated list, trimmed, without empty elements.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Prints a write's response: its document on standard output, `HTTP <status>` (and `Location`) on standard
    /// error.
    static func report(_ response: WriteResponse<PrimaryData>, streams: Streams) throws {
        var status = "HTTP \(response.status.code)"
        if let location = response.location { status += ", Location: \(location.absoluteString)" }
        streams.error(status)
        if let document = response.document ?? response.rawDocument { streams.output(try Output.text(of: document)) }
    }
}
