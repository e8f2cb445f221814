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
        let walk = try await fetch(options, client: client) { progress.report($0) }
        let document = walk.document
        if options.table {
            streams.output(Data(Table(document.data?.resources ?? [], columns: options.columns).text.utf8))
        } else {
            streams.output(try Output.text(of: document))
        }
        // `--all` never ends short in silence: the walk stopped (no next link, no strategy to go on) before the
        // total the server reported.
        if let total = walk.reportedTotal, walk.resourceCount < total {
            progress.finish()
            streams.error(
                "Error: the walk ended after \(walk.pages) page\(walk.pages == 1 ? "" : "s") and \(walk.resourceCount) "
                    + "resources, but the server reports \(total): it sent no next link and the URL names no page "
                    + "size to go on with (try --page-size N)")
            return Output.ExitCode.failure
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

    /// What `fetch` got: the document (every page merged, with `--all`), and what the walk saw of the collection.
    struct Walk {
        var document: RawDocument
        var pages = 1
        var resourceCount = 0
        /// The number of resources the last page's `meta` reported for the whole collection, if any.
        var reportedTotal: Int?
    }

    /// Fetches the document schema-less through a session on the URL's server; with `--all`, appends every next
    /// page to it, reporting after each page.
    static func fetch(_ options: Options, client: any Client, progress: (PaginationProgress) -> Void) async throws
        -> Walk
    {
        let session = RequestOptions.session(for: options.url, client: client)
        var request = session.fetch(options.url)
        if !options.include.isEmpty { request = request.include(options.include) }
        if !options.fields.isEmpty { request = request.fields(options.fields) }
        if !options.sort.isEmpty { request = request.sort(options.sort) }
        for filter in options.filters { request = request.filter(filter.name, filter.value) }
        var addressed = false
        switch (options.page, options.pageSize) {
        case (let number?, let size?):
            request = request.page(.pageBased(number, size))
            addressed = true
        case (let number?, nil): request = request.query("page[number]", String(number))
        case (nil, let size?) where options.all:
            request = request.page(.pageBased(1, size))
        case (nil, let size?): request = request.query("page[size]", String(size))
        case (nil, nil):
            // A walk of a URL that names its own pages (`?page[size]=50`) goes on by them when the server sends no
            // links: the strategy is the one the URL's parameters spell.
            if options.all, let strategy = inferredStrategy(options.url) { request = request.page(strategy) }
        }
        for header in options.headers { request = request.header(HTTPField.Name(header.name), header.value) }
        guard options.all else {
            let page = try await request.result()
            return Walk(document: page.document, resourceCount: page.document.data?.resources.count ?? 0)
        }
        // The fastest safe walk: pages addressed by --page and --page-size are fetched four at a time (the strategy
        // then knows every page's address), else the next page is prefetched along `next` (the server's links come
        // first: a size alone may belong to a cursor walk), and by the strategy when there are none.
        var merged = PageMerger()
        var reportedTotal: Int?
        for try await page in request.pages(concurrency: addressed ? 4 : 1) {
            merged.add(page.document)
            reportedTotal = PageContext(count: merged.resourceCount, meta: page.meta).totalResources
            progress(
                PaginationProgress(
                    pagesFetched: merged.pages, resourcesFetched: merged.resourceCount, totalResources: reportedTotal))
        }
        return Walk(
            document: merged.document ?? RawDocument(), pages: merged.pages, resourceCount: merged.resourceCount,
            reportedTotal: reportedTotal)
    }

    /// The strategy a URL's own query spells: `page[size]` (with `page[number]`, else from page 1) is page-based,
    /// `page[limit]` (with `page[offset]`, else from 0) offset-based; `nil` for anything else (a cursor goes by the
    /// server's links).
    static func inferredStrategy(_ url: URL) -> (any PaginationStrategy)? {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
        func number(_ name: String) -> Int? { items.last { $0.name == name }?.value.flatMap { Int($0) } }
        if let size = number("page[size]"), size > 0 {
            return PageBasedPagination.pageBased(max(number("page[number]") ?? 1, 1), size)
        }
        if let limit = number("page[limit]"), limit > 0 {
            return OffsetPagination.offsetBased(max(number("page[offset]") ?? 0, 0), limit)
        }
        return nil
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
