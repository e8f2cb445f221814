import Foundation
import JSONAPIClient

/// The resource object `create` and `update` send: a JSON body (`--data` or `--file`), a JSON:API document or a
/// bare resource object, with `--type`, `--set` and `--null` applied to it.
enum ResourceBody {
    static let options: [OptionSpec] = [
        OptionSpec(
            long: "data", short: "d", value: "JSON",
            help: "the body: a document {\"data\": {…}} or a bare resource object {\"type\": …}"),
        OptionSpec(long: "file", short: nil, value: "PATH|-", help: "read the body from PATH (- for standard input)", isPath: true),
        OptionSpec(long: "type", short: "t", value: "TYPE", help: "the resource type, when no body gives it"),
        OptionSpec(
            long: "set", short: nil, value: "NAME=VALUE",
            help: "set attribute NAME; VALUE is read as JSON when it is JSON (5, true, [1], \"5\"), else as a string (repeatable)"),
        OptionSpec(long: "null", short: nil, value: "NAME", help: "set attribute NAME to null (repeatable)"),
    ]

    /// The resource the arguments describe; `nil` when they give neither a body nor `--type`, `--set`, `--null`.
    ///
    /// - Throws: ``UsageError`` for a body that is not a resource object, an unreadable file, a bad `--set`.
    static func resource(_ arguments: ParsedArguments, streams: Streams) throws(UsageError) -> ResourceObject? {
        var resource = try body(arguments, streams: streams)
        if let type = arguments.last("type") {
            if resource == nil { resource = ResourceObject(type: type) }
            resource?.type = type
        }
        let sets = arguments.all("set"), nulls = arguments.all("null")
        guard !sets.isEmpty || !nulls.isEmpty else { return resource }
        var attributes = resource?.attributes ?? [:]
        for set in sets {
            guard let (name, text) = RequestOptions.split(set, at: "="), !name.isEmpty else {
                throw UsageError(message: "--set needs NAME=VALUE, not '\(set)'")
            }
            attributes[name] = (try? JSONAPIDecoder().decodeValue(from: Data(text.utf8))) ?? .string(text)
        }
        for name in nulls { attributes[name] = .null }
        var result = resource ?? ResourceObject(type: "")
        result.attributes = attributes
        return result
    }

    /// The body's resource object, from `--data` or `--file`.
    private static func body(_ arguments: ParsedArguments, streams: Streams) throws(UsageError) -> ResourceObject? {
        let data: Data
        switch (arguments.last("data"), arguments.last("file")) {
        case (nil, nil): return nil
        case (_?, _?): throw UsageError(message: "give the body with --data or --file, not both")
        case (let text?, nil): data = Data(text.utf8)
        case (nil, "-"): data = streams.input()
        case (nil, let path?):
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw UsageError(message: "cannot read \(path): \(error.localizedDescription)")
            }
        }
        let decoder = JSONAPIDecoder()
        let value: JSONValue
        do {
            value = try decoder.decodeValue(from: data)
        } catch {
            throw UsageError(message: "the body is not JSON: \(error)")
        }
        guard let members = value.objectValue else { throw UsageError(message: "the body is not a JSON object") }
        // A bare resource object becomes the primary data of a document, so one reader checks both forms.
        let document = members["data"] == nil ? Data("{\"data\":".utf8) + data + Data("}".utf8) : data
        do {
            switch try decoder.decode(RawDocument.self, from: document).data {
            case .resource(let resource)?: return resource
            case .identifier(let identifier)?: return ResourceObject(identifier)
            default: throw UsageError(message: "the body's data is not one resource object")
            }
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(message: "the body is not a resource object: \(error)")
        }
    }
}
