import Foundation
import JSONAPIClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jsonapi get URL [OPTIONS]`: fetches a document and prints it normalized (pretty JSON, sorted keys); with
/// `--all`, follows `next` to the end and prints one merged document.
enum GetCommand {
    static let usage = """
        usage: jsonapi get URL [OPTIONS]
          Fetches the JSON:API document at URL and prints it normalized: pretty JSON with sorted keys.
          Query parameters already in URL are kept; the options add to them: include, sort and fields
          lists grow, a filter or page option replaces the URL's parameter of that name.
          --include a,b.c          include related resources (repeatable)
          --fields TYPE=a,b        sparse fieldset for TYPE (repeatable)
          --sort -x,y              sort fields (repeatable)
          --filter NAME=VALUE      filter[NAME]=VALUE, e.g. title.icontains=swift (repeatable)
          --page N                 page[number]
          --page-size N            page[size]
          --header "Name: value"   an extra request header (repeatable)
          --all                    follow next links to the end; print one merged document
                                   (all primary data, merged included, the last page's links and meta)
          --progress               report pages fetched on standard error (default when it is a terminal)
          Exit status: 0 success, 1 HTTP, transport or decoding error (details on standard error), 2 bad arguments.
        """

    /// The parsed command line.
    struct Options: Equatable {
        var url: URL
        var include: [String] = []
        var fields: [String: [String]] = [:]
        var sort: [String] = []
        var filters: [(name: String, value: String)] = []
        var page: Int?
        var pageSize: Int?
        var headers: [(name: String, value: String)] = []
        var all = false
        var progress = false

        static func == (lhs: Options, rhs: Options) -> Bool {
            lhs.url == rhs.url && lhs.include == rhs.include && lhs.fields == rhs.fields && lhs.sort == rhs.sort
                && lhs.filters.map { "\($0.name)=\($0.value)" } == rhs.filters.map { "\($0.name)=\($0.value)" }
                && lhs.page == rhs.page && lhs.pageSize == rhs.pageSize
                && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
                && lhs.all == rhs.all && lhs.progress == rhs.progress
        }
    }

    /// A usage error: the message for standard error.
    struct UsageError: Error, Equatable {
        var message: String
    }

    /// Where the command writes.
    struct Streams: Sendable {
        var output: @Sendable (Data) -> Void
        var error: @Sendable (String) -> Void
        var errorIsTerminal: Bool

        static var standard: Streams {
            Streams(
                output: { Output.standardOutput($0) }, error: { Output.standardError($0) },
                errorIsTerminal: isatty(STDERR_FILENO) != 0)
        }
    }

    /// Runs the command with the standard streams and returns the exit status.
    static func run(_ arguments: [String]) async -> Int32 { await run(arguments, streams: .standard) }

    /// Runs the command, writing to `streams`, with `client` as the transport.
    static func run(_ arguments: [String], streams: Streams, client: any Client = URLSessionClient()) async -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            streams.output(Data((usage + "\n").utf8))
            return Output.ExitCode.success
        }
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            streams.error("jsonapi get: \(error.message)\n\(usage)")
            return Output.ExitCode.usage
        }
        do {
            let document = try await fetch(options, client: client) { page in
                if options.progress || streams.errorIsTerminal { streams.error(page) }
            }
            var data = try JSONAPIEncoder(outputFormatting: .prettyPrinted).encode(document)
            data.append(UInt8(ascii: "\n"))
            streams.output(data)
            return Output.ExitCode.success
        } catch let error as JSONAPIClientError {
            streams.error(describe(error))
            return Output.ExitCode.failure
        } catch {
            streams.error("jsonapi get: \(error)")
            return Output.ExitCode.failure
        }
    }

    // MARK: Parsing

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var url: URL?
        var pending: [(String, String)] = []
        var index = arguments.startIndex
        func value(for option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.endIndex else { throw UsageError(message: "\(option) needs a value") }
            return arguments[index]
        }
        var flags: Set<String> = []
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                let name = parts[0]
                let inline = parts.count > 1 ? parts[1] : nil
                switch name {
                case "--all", "--progress":
                    guard inline == nil else { throw UsageError(message: "\(name) takes no value") }
                    flags.insert(name)
                case "--include", "--fields", "--sort", "--filter", "--page", "--page-size", "--header":
                    pending.append((name, try value(for: name, inline: inline)))
                default:
                    throw UsageError(message: "unknown option '\(argument)'")
                }
            } else {
                guard url == nil else { throw UsageError(message: "unexpected argument '\(argument)'") }
                guard let parsed = URL(string: argument), let scheme = parsed.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", parsed.host != nil
                else { throw UsageError(message: "'\(argument)' is not an http or https URL") }
                url = parsed
            }
            index += 1
        }
        guard let url else { throw UsageError(message: "missing URL") }
        var result = Options(url: url, all: flags.contains("--all"), progress: flags.contains("--progress"))
        for (name, value) in pending {
            switch name {
            case "--include": result.include += list(value)
            case "--sort": result.sort += list(value)
            case "--fields":
                guard let (type, names) = pair(value, separator: "="), !type.isEmpty else {
                    throw UsageError(message: "--fields needs TYPE=a,b, not '\(value)'")
                }
                result.fields[type] = list(names)
            case "--filter":
                guard let (filter, filterValue) = pair(value, separator: "="), !filter.isEmpty else {
                    throw UsageError(message: "--filter needs NAME=VALUE, not '\(value)'")
                }
                result.filters.append((filter, filterValue))
            case "--page", "--page-size":
                guard let number = Int(value), number >= 1 else {
                    throw UsageError(message: "\(name) needs a positive integer, not '\(value)'")
                }
                if name == "--page" { result.page = number } else { result.pageSize = number }
            default:
                guard let (header, headerValue) = pair(value, separator: ":"),
                    !header.trimmingCharacters(in: .whitespaces).isEmpty
                else { throw UsageError(message: "--header needs \"Name: value\", not '\(value)'") }
                result.headers.append(
                    (header.trimmingCharacters(in: .whitespaces), headerValue.trimmingCharacters(in: .whitespaces)))
            }
        }
        return result
    }

    private static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func pair(_ value: String, separator: Character) -> (String, String)? {
        guard let mark = value.firstIndex(of: separator) else { return nil }
        return (String(value[..<mark]), String(value[value.index(after: mark)...]))
    }

    // MARK: Fetching

    /// Fetches the document schema-less through a session on the URL's server; with `--all`, appends every next
    /// page to it.
    static func fetch(_ options: Options, client: any Client, progress: (String) -> Void) async throws -> RawDocument {
        let session = Session(baseURL: options.url, client: client)
        var request = session.fetch(options.url)
        if !options.include.isEmpty { request = request.include(options.include) }
        if !options.fields.isEmpty { request = request.fields(options.fields) }
        if !options.sort.isEmpty { request = request.sort(options.sort) }
        for filter in options.filters { request = request.filter(filter.name, filter.value) }
        switch (options.page, options.pageSize) {
        case (let number?, let size?): request = request.page(.pageBased(number, size))
        case (let number?, nil): request = request.query("page[number]", String(number))
        case (nil, let size?): request = request.query("page[size]", String(size))
        case (nil, nil): break
        }
        for header in options.headers { request = request.header(HTTPField.Name(header.name), header.value) }
        var response = try await request.result()
        guard options.all else { return response.document }
        var pages = 1
        func report() {
            let count = response.data?.resources.count ?? 0
            let total = PageContext(count: count, meta: response.meta).totalResources.map { " of \($0)" } ?? ""
            progress("jsonapi get: \(pages) page\(pages == 1 ? "" : "s"), \(count)\(total) resources")
        }
        report()
        while response.hasNext {
            let result = try await response.appendNext()
            guard result.fetchedPage else { break }
            pages += 1
            report()
            if !result.hasMore { break }
        }
        return response.document
    }

    // MARK: Errors

    static func describe(_ error: JSONAPIClientError) -> String {
        var lines: [String] = []
        var head = "jsonapi get: "
        if let status = error.status { head += "HTTP \(status.code)" } else { head += "\(error.code)" }
        if let method = error.method, let url = error.url { head += " from \(method) \(url.absoluteString)" }
        lines.append(head)
        if let decoding = error.decodingError {
            // The decoding error's description starts with its pointer; the detail repeats the description.
            lines.append("  not the expected document: \(decoding)")
        } else if error.status == nil || error.errors.isEmpty {
            lines.append("  \(error.detail)")
        }
        for object in error.errors { lines.append("  error: \(object)") }
        if error.errors.isEmpty, error.decodingError == nil, let text = error.responseText, !text.isEmpty {
            lines.append("  body: " + (text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text))
        }
        return lines.joined(separator: "\n")
    }
}
