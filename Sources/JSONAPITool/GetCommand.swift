import Foundation
import JSONAPIClient

/// `jsonapi get URL [OPTIONS]`: fetches a document and prints it normalized (pretty JSON, sorted keys) or as a
/// table; with `--all`, follows `next` to the end and prints one merged document.
enum GetCommand: Command {
    static let name = "get"
    static let synopsis = "URL [OPTIONS]"
    static let summary = "fetch a document and print it as JSON or a table"
    static let discussion = """
          Fetches the JSON:API document at URL and prints it normalized: pretty JSON with sorted keys,
          or with --output table one line per resource (type, id and attributes).
          Query parameters already in URL are kept; the options add to them: include, sort and fields
          lists grow, a filter or page option replaces the URL's parameter of that name.
          Exit status: 0 success, 1 HTTP, transport or decoding error (details on standard error), 2 bad arguments.
        """
    static let options: [OptionSpec] = [
        OptionSpec(long: "include", short: "i", value: "a,b.c", help: "include related resources (repeatable)"),
        OptionSpec(long: "fields", short: "F", value: "TYPE=a,b", help: "sparse fieldset for TYPE (repeatable)"),
        OptionSpec(long: "sort", short: "s", value: "-x,y", help: "sort fields (repeatable)"),
        OptionSpec(
            long: "filter", short: "f", value: "NAME=VALUE",
            help: "filter[NAME]=VALUE, e.g. title.icontains=swift (repeatable)"),
        OptionSpec(long: "page", short: "p", value: "N", help: "page[number]"),
        OptionSpec(long: "page-size", short: "n", value: "N", help: "page[size]"),
        RequestOptions.header,
        OptionSpec(
            long: "all", short: "a", value: nil,
            help: "follow next links to the end; print one merged document (all primary data, merged included, the last page's links and meta)"),
        OptionSpec(
            long: "progress", short: nil, value: nil,
            help: "report pages fetched on standard error (default when it is a terminal, where one line updates in place)"),
        OptionSpec(
            long: "output", short: "o", value: "json|table", help: "json (the default) or table: one line per resource",
            choices: ["json", "table"]),
        OptionSpec(
            long: "columns", short: "c", value: "a,b",
            help: "the attributes --output table shows (default: every attribute, by name)"),
    ]

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
        var table = false
        var columns: [String]?

        static func == (lhs: Options, rhs: Options) -> Bool {
            lhs.url == rhs.url && lhs.include == rhs.include && lhs.fields == rhs.fields && lhs.sort == rhs.sort
                && lhs.filters.map { "\($0.name)=\($0.value)" } == rhs.filters.map { "\($0.name)=\($0.value)" }
                && lhs.page == rhs.page && lhs.pageSize == rhs.pageSize
                && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
                && lhs.all == rhs.all && lhs.progress == rhs.progress && lhs.table == rhs.table
                && lhs.columns == rhs.columns
        }
    }

    static func execute(_ arguments: ParsedArguments, streams: Streams, client: any Client) async throws -> Int32 {
        let options = try options(arguments)
        let progress = ProgressLine(command: name, streams: streams, forced: options.progress)
        defer { progress.finish() }
        let document = try await fetch(options, client: client) { progress.report($0) }
        if options.table {
            streams.output(Data(Table(document.data?.resources ?? [], columns: options.columns).text.utf8))
        } else {
            streams.output(try Output.text(of: document))
        }
        return Output.ExitCode.success
    }

    // MARK: Parsing

    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        try options(try ParsedArguments.parse(arguments, options: options))
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        var result = Options(url: try RequestOptions.url(arguments), all: arguments.has("all"), progress: arguments.has("progress"))
        result.include = arguments.all("include").flatMap(RequestOptions.list)
        result.sort = arguments.all("sort").flatMap(RequestOptions.list)
        for value in arguments.all("fields") {
            guard let (type, names) = RequestOptions.split(value, at: "="), !type.isEmpty else {
                throw UsageError(message: "--fields needs TYPE=a,b, not '\(value)'")
            }
            result.fields[type] = RequestOptions.list(names)
        }
        for value in arguments.all("filter") {
            guard let (filter, filterValue) = RequestOptions.split(value, at: "="), !filter.isEmpty else {
                throw UsageError(message: "--filter needs NAME=VALUE, not '\(value)'")
            }
            result.filters.append((filter, filterValue))
        }
        for name in ["page", "page-size"] {
            guard let value = arguments.last(name) else { continue }
            guard let number = Int(value), number >= 1 else {
                throw UsageError(message: "--\(name) needs a positive integer, not '\(value)'")
            }
            if name == "page" { result.page = number } else { result.pageSize = number }
        }
        result.headers = try RequestOptions.headers(arguments).map { ($0.name.rawName, $0.value) }
        switch arguments.last("output") {
        case nil, "json": break
        case "table": result.table = true
        case let other?: throw UsageError(message: "--output needs json or table, not '\(other)'")
        }
        if let columns = arguments.last("columns") {
            guard result.table else { throw UsageError(message: "--columns applies to --output table") }
            result.columns = RequestOptions.list(columns)
        }
        return result
    }

    // MARK: Fetching

    /// Fetches the document schema-less through a session on the URL's server; with `--all`, appends every next
    /// page to it, reporting after each page.
    static func fetch(_ options: Options, client: any Client, progress: (PaginationProgress) -> Void) async throws
        -> RawDocument
    {
        let session = RequestOptions.session(for: options.url, client: client)
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
        guard options.all else { return try await request.result().document }
        // The fastest safe walk: pages addressed by number fetched four at a time when both --page and --page-size
        // name them (the strategy then knows every page's address), else the next page prefetched along `next`.
        let concurrency = options.page != nil && options.pageSize != nil ? 4 : 1
        var merged = PageMerger()
        for try await page in request.pages(concurrency: concurrency) {
            merged.add(page.document)
            progress(
                PaginationProgress(
                    pagesFetched: merged.pages, resourcesFetched: merged.resourceCount,
                    totalResources: PageContext(count: merged.resourceCount, meta: page.meta).totalResources))
        }
        return merged.document ?? RawDocument()
    }
}

/// The pages of an `--all` walk as one document: every page's primary data in order and its `included`, each
/// resource once by `(type, id)`, and the last page's `links` and `meta`.
struct PageMerger {
    private(set) var document: RawDocument?
    private(set) var pages = 0
    private var primaryKeys: Set<ResourceIdentifier> = []
    private var includedKeys: Set<ResourceIdentifier> = []

    var resourceCount: Int { primaryKeys.count }

    mutating func add(_ page: RawDocument) {
        pages += 1
        guard var merged = document else {
            document = page
            primaryKeys = Set(page.data?.identifiers ?? [])
            includedKeys = Set(page.included?.map(\.identifier) ?? [])
            return
        }
        switch (merged.data, page.data) {
        case (.resources(let earlier), .resources(let later)):
            merged.data = .resources(earlier + later.filter { primaryKeys.insert($0.identifier).inserted })
        case (.identifiers(let earlier), .identifiers(let later)):
            merged.data = .identifiers(earlier + later.filter { primaryKeys.insert($0).inserted })
        default:
            break
        }
        if let included = page.included {
            merged.included = (merged.included ?? []) + included.filter { includedKeys.insert($0.identifier).inserted }
        }
        merged.links = page.links
        merged.meta = page.meta
        document = merged
    }
}
