// Fuzz target: URLs built from server data. Path templates (`<type>`, `<id>` substituted), relationship and related
// endpoints, query options, and links resolved against a base. The input is lines: base URL, template, type, id,
// relationship, link href, filter name, filter value.
import Foundation
import JSONAPIClient

/// A transport that is never called: the target only builds URLs.
private struct NoClient: Client {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 500) }
}

private struct Thing: Resource {
    static let resourceType = "things"
    var id: String
}

/// Templates as applications write them; the fuzzed template is only checked for crashes.
private let templates = ["<type>/<id>", "articles/<id>", "me", "v2/<type>/items/<id>", "/<type>/<id>/"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLs(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let fields = String(decoding: fuzzInput(bytes, count), as: UTF8.self)
        .split(separator: "\n", maxSplits: 7, omittingEmptySubsequences: false).map(String.init)
    func field(_ index: Int) -> String { index < fields.count ? fields[index] : "" }
    guard let base = URL(string: field(0)) else { return 0 }
    let (template, type, id, relationship, href) = (field(1), field(2), field(3), field(4), field(5))

    // Any template: no crash.
    let fuzzedRouter = PathTemplateRouter(template: template)
    _ = try? fuzzedRouter.collectionURL(type: type, baseURL: base)
    _ = try? fuzzedRouter.resourceURL(type: type, id: id, baseURL: base)
    _ = try? fuzzedRouter.relationshipURL(type: type, id: id, relationship: relationship, baseURL: base)
    _ = try? fuzzedRouter.relatedURL(type: type, id: id, relationship: relationship, baseURL: base)

    // Real templates: what the server chooses (type, id, relationship name) stays one path segment on the base.
    if Origin(base) != nil, base.query == nil, base.fragment == nil, !type.isEmpty {
        for template in templates { checkEndpoints(PathTemplateRouter(template: template), base, type, id, relationship) }
    }

    // Links: followed only on the data source's origin, resolved against the base as a folder or a given URL.
    let source = DataSource<Thing>(baseURL: base, router: .path(template), client: NoClient())
    for relativeTo in [nil, URL(string: field(6))] {
        guard let url = try? source.fetch(link: Link(href: href), relativeTo: relativeTo, as: PrimaryData.self).url
        else { continue }
        check(Origin(url) != nil && Origin(url) == Origin(base), "link \(href) from \(base) leads to \(url)")
    }

    // Query options: each reads back as given.
    let (name, value) = (field(6), field(7))
    if let url = try? source.fetch().filter(name, value).sort([value]).include([value]).url {
        let items = queryItems(of: url)
        check(items.contains { $0 == ("filter[\(name)]", value) }, "filter \(name)=\(value) is not in \(url)")
        if !value.isEmpty {
            check(items.contains { $0 == ("sort", value) }, "sort \(value) is not in \(url)")
            check(items.contains { $0 == ("include", value) }, "include \(value) is not in \(url)")
        }
    }
    return 0
}

private func checkEndpoints(_ router: PathTemplateRouter, _ base: URL, _ type: String, _ id: String, _ relationship: String) {
    guard let collection = try? router.collectionURL(type: type, baseURL: base) else { return }
    check(Origin(collection) == Origin(base), "\(router.template): collection \(collection) is not on \(base)")
    guard !id.isEmpty else { return }
    let resource: URL
    do {
        resource = try router.resourceURL(type: type, id: id, baseURL: base)
    } catch {
        check(false, "\(router.template): no resource URL for id \(id.debugDescription) on \(base): \(error)")
        return
    }
    check(Origin(resource) == Origin(base), "\(router.template): \(resource) is not on \(base)")
    check(resource.query == nil && resource.fragment == nil, "\(router.template): id \(id.debugDescription) gives \(resource)")
    check(lastSegment(of: resource) == id, "\(router.template): id \(id.debugDescription) reads back from \(resource) as \(lastSegment(of: resource) ?? "nil")")
    guard !relationship.isEmpty, let related = try? router.relatedURL(type: type, id: id, relationship: relationship, baseURL: base)
    else { return }
    check(related.absoluteString.hasPrefix(resource.absoluteString), "related \(related) is not beneath \(resource)")
    check(lastSegment(of: related) == relationship, "relationship \(relationship.debugDescription) reads back from \(related)")
}

/// The last non-empty path segment of `url`, percent-decoded.
private func lastSegment(of url: URL) -> String? {
    url.absoluteString.split(separator: "/").last.flatMap { String($0).removingPercentEncoding }
}

/// The query's name–value pairs, form-decoded (`+` is a space).
private func queryItems(of url: URL) -> [(String, String)] {
    guard let query = url.absoluteString.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
    func decode(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "\u{FFFD}"
    }
    return query.split(separator: "&").map { pair in
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
    }
}
