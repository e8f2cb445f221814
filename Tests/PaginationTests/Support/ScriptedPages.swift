import Foundation
import JSONAPIClient
import TestSupport

/// Builds JSON:API pages for scripted transports.
enum Pages {
    /// `{"data": [articles…], "links": {…}, "meta": …, "included": …}`; a `nil` link value is written as `null`.
    static func body(
        _ ids: [Int], links: [(String, String?)] = [], meta: String? = nil, included: [Int] = [], author: Bool = false
    ) -> String {
        let data = ids.map { id in
            let relationship = author ? #","relationships":{"author":{"data":{"type":"people","id":"\#((id - 1) % 20 + 1)"}}}"# : ""
            return #"{"type":"articles","id":"\#(id)","attributes":{"title":"ArticleSummary \#(id)"}\#(relationship),"meta":{"page":{"cursor":"c\#(id)"}}}"#
        }
        var members = [#""data":[\#(data.joined(separator: ","))]"#]
        if !links.isEmpty {
            let rendered = links.map { name, href in "\"\(name)\":" + (href.map { "\"\($0)\"" } ?? "null") }
            members.append(#""links":{\#(rendered.joined(separator: ","))}"#)
        }
        if let meta { members.append(#""meta":\#(meta)"#) }
        if !included.isEmpty {
            let people = included.map { #"{"type":"people","id":"\#($0)","attributes":{"name":"Person \#($0)"}}"# }
            members.append(#""included":[\#(people.joined(separator: ","))]"#)
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func source(
        _ client: ScriptedClient, path: String = "articles", configuration: Session.Configuration = .init()
    ) -> DataSource<ArticleSummary> {
        DataSource<ArticleSummary>(baseURL: exampleBase, router: .path(path), client: client, configuration: configuration)
    }

    /// A page-number server without links: `count` articles, pages of `page[size]`; `meta` from `meta(pages, count)`.
    static func linklessServer(count: Int, meta: @escaping @Sendable (_ pages: Int, _ count: Int) -> String?) -> ScriptedClient {
        ScriptedClient { request in
            let number = Int(request.url.queryValue("page[number]") ?? "1") ?? 1
            let size = Int(request.url.queryValue("page[size]") ?? "10") ?? 10
            let ids = Array(((number - 1) * size + 1)...max((number - 1) * size + 1, min(number * size, count)))
                .filter { $0 <= count }
            let pages = (count + size - 1) / size
            return .document(body(ids, meta: meta(pages, count)))
        }
    }
}
