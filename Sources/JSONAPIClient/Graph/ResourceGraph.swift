import Foundation

/// New resources that refer to each other before any has an id — an article, its new author, its new tags — named
/// by their local ids (`lid`), to create in one call with ``Session/create(_:operationsPath:headerFields:)``.
///
/// ```swift
/// var graph = ResourceGraph()
/// let author = Person(lid: "p1", name: "Ann")
/// let tag = Tag(lid: "t1", name: "swift")
/// graph.add(author)
/// graph.add(tag)
/// graph.add(Article(lid: "a1", title: "Hello", author: author, tags: [tag]))
/// let result = try await session.create(graph)
/// let article = try result.created(Article.self, lid: "a1")   // as the server returned it, with its id
/// ```
///
/// A model is named by its local id when it declares `var lid: String?` (and `var id: String?`, `nil` until the
/// server names it); a relationship to another model of the graph is written with that model's local id, so the
/// models may be added in any order: the session sends the ones others depend on first. A relationship may also name
/// a resource that exists already (by its id), or one an earlier graph of the same session created (by its local
/// id, which the session sends as the id).
public struct ResourceGraph: Sendable {
    /// A resource to create, and where its collection is.
    struct Node: Sendable {
        var model: any Resource
        var endpoint: URLStrategy
    }

    /// The resources, in the order they were added.
    var nodes: [Node] = []

    /// An empty graph.
    public init() {}

    /// The number of resources to create.
    public var count: Int { nodes.count }

    /// Adds a resource to create.
    ///
    /// - Parameters:
    ///   - model: The new resource; its local id (`lid`) names it to the other resources of the graph and in the
    ///     result. Its `id` only when the server accepts client-generated ids.
    ///   - endpoint: Where its collection is, for a server without Atomic Operations (the resource is `POST`ed
    ///     there): `<type>` under the session's base URL by default, as for ``Session/source(_:_:)``.
    public mutating func add<Model: Resource>(_ model: Model, _ endpoint: URLStrategy = .path("<type>/<id>")) {
        nodes.append(Node(model: model, endpoint: endpoint))
    }

    /// Adds resources to create, of one type (the new tags of an article).
    ///
    /// - Parameters:
    ///   - models: The new resources, each named by its local id.
    ///   - endpoint: Where their collection is; `<type>` under the session's base URL by default.
    public mutating func add<Model: Resource>(_ models: [Model], _ endpoint: URLStrategy = .path("<type>/<id>")) {
        for model in models { add(model, endpoint) }
    }
}

extension ResourceGraph {
    /// A resource a graph created: its type, the local id it was added with, and the id the server gave it.
    public struct Created: Sendable, Hashable, CustomStringConvertible {
        /// The resource type, e.g. `"articles"`.
        public var type: String
        /// The local id it was added with; `nil` for a resource added without one.
        public var lid: String?
        /// The id the server gave it.
        public var id: String
        /// The resource as the server returned it.
        public var resource: ResourceObject

        /// Creates a record of a created resource.
        ///
        /// - Parameters:
        ///   - type: The resource type.
        ///   - lid: The local id it was added with.
        ///   - id: The server's id.
        ///   - resource: The resource as the server returned it.
        public init(type: String, lid: String?, id: String, resource: ResourceObject) {
            self.type = type
            self.lid = lid
            self.id = id
            self.resource = resource
        }

        /// `type/lid:x → id`.
        public var description: String { "\(type)/lid:\(lid ?? "-") → \(id)" }
    }
}
