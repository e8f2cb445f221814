import Foundation

/// Lazy relationships: the targets a response did not include, loaded on demand — from the session's store when it
/// has them, else from the server (the relationship's `related` link, or the related endpoint the data source's
/// router names).
///
/// ```swift
/// let article = try await articles.fetch(id: "1").result().data      // no include
/// let author: Person? = try await articles.load("author", of: article!)
/// let comments: [Comment] = try await articles.load("comments", of: article!)
/// let tags = try await articles.load(article!.tags)                    // a ToMany<Tag>
/// ```
extension DataSource {
    /// The target of a to-one relationship: the resolved one when the response included it, else the store's, else
    /// fetched by the relationship's `related` link. `nil` for an empty relationship.
    ///
    /// - Parameter relationship: The relationship, as a model decoded it.
    /// - Returns: The target; `nil` for an empty relationship.
    /// - Throws: ``JSONAPIClientError``: a request failed, or (``JSONAPIClientError/Code/invalidRequest``) the
    ///   target is neither included, nor in the store, nor reachable by a `related` link — use
    ///   `load(_:of:as:)` with the model, which knows the related endpoint.
    public nonisolated func load<Target: Resource>(_ relationship: ToOne<Target>) async throws -> Target? {
        if let resource = relationship.resource { return resource }
        if relationship.hasLinkage, relationship.identifier == nil { return nil }
        if let stored = try stored(Target.self, relationship.identifier.map { [$0] } ?? [])?.first { return stored }
        guard let related = relationship.links?.related else { throw unreachable(Target.self) }
        return try await session.fetch(link: related, as: Target?.self).result().document.data ?? nil
    }

    /// The targets of a to-many relationship: the resolved ones when the response included them all, else the
    /// store's when it has them all, else every page fetched by the relationship's `related` link.
    ///
    /// - Parameter relationship: The relationship, as a model decoded it.
    /// - Returns: The targets, in the linkage's order (or the server's, when fetched).
    /// - Throws: ``JSONAPIClientError``, as for a to-one relationship.
    public nonisolated func load<Target: Resource>(_ relationship: ToMany<Target>) async throws -> [Target] {
        if relationship.hasLinkage, relationship.resources.count == relationship.identifiers.count {
            return relationship.resources
        }
        if relationship.hasLinkage, let stored = try stored(Target.self, relationship.identifiers) { return stored }
        guard let related = relationship.links?.related else { throw unreachable(Target.self) }
        return try await all(session.fetch(link: related, as: [Target].self))
    }

    /// The target of the to-one relationship `name` of `model`: from the store when it holds the model's linkage and
    /// the target, else fetched from the relationship's `related` link or the related endpoint
    /// (`/articles/1/author`).
    ///
    /// - Parameters:
    ///   - name: The relationship's member name, e.g. `"author"`.
    ///   - model: The resource whose relationship to load.
    ///   - type: The target's model type (inferred from the result).
    /// - Returns: The target; `nil` for an empty relationship.
    /// - Throws: ``JSONAPIClientError``: a request failed, or the relationship's URL could not be built.
    public nonisolated func load<Target: Resource>(
        _ name: String, of model: Model, as type: Target.Type = Target.self
    ) async throws -> Target? {
        let relationship = storedRelationship(name, of: model)
        if let linkage = relationship?.data {
            guard let identifier = linkage.identifiers.first else { return nil }
            if let stored = try stored(Target.self, [identifier])?.first { return stored }
        }
        return try await fetchRelated(name, of: model, link: relationship?.links?.related, as: Target?.self) ?? nil
    }

    /// The targets of the to-many relationship `name` of `model`: from the store when it holds the linkage and every
    /// target, else every page of the relationship's `related` link or the related endpoint (`/articles/1/comments`).
    ///
    /// - Parameters:
    ///   - name: The relationship's member name, e.g. `"comments"`.
    ///   - model: The resource whose relationship to load.
    ///   - type: The targets' array type (inferred from the result).
    /// - Returns: The targets.
    /// - Throws: ``JSONAPIClientError``: a request failed, or the relationship's URL could not be built.
    public nonisolated func load<Target: Resource>(
        _ name: String, of model: Model, as type: [Target].Type = [Target].self
    ) async throws -> [Target] {
        let relationship = storedRelationship(name, of: model)
        if let linkage = relationship?.data, let stored = try stored(Target.self, linkage.identifiers) { return stored }
        let url = try relatedURL(name, of: model, link: relationship?.links?.related)
        return try await all(session.fetch(url, as: [Target].self))
    }

    // MARK: Helpers

    /// The models of `identifiers` from the store, in order; `nil` unless it has every one.
    private nonisolated func stored<Target: Resource>(_ type: Target.Type, _ identifiers: [ResourceIdentifier]) throws
        -> [Target]?
    {
        guard let store = session.store else { return nil }
        var models: [Target] = []
        for identifier in identifiers {
            guard identifier.type == Target.resourceType, let id = identifier.id else { return nil }
            let found: Target?
            do {
                found = try store.resource(Target.self, id: id)
            } catch let error as JSONAPIClientError where error.code == .storeNotRead {
                return nil  // not read from disk: loaded from the server instead
            }
            guard let model = found else { return nil }
            models.append(model)
        }
        return models
    }

    /// The relationship object the store holds for `model`'s relationship `name`.
    private nonisolated func storedRelationship(_ name: String, of model: Model) -> Relationship? {
        guard let id = model.id.resourceID else { return nil }
        return session.store?.record(type: Model.resourceType, id: id)?.relationships?[name]
    }

    private nonisolated func fetchRelated<Primary: Decodable & Sendable>(
        _ name: String, of model: Model, link: Link?, as type: Primary.Type
    ) async throws -> Primary? {
        try await session.fetch(try relatedURL(name, of: model, link: link), as: Primary.self).result().document.data
    }

    /// The related link when there is one, else the related endpoint the router names.
    private nonisolated func relatedURL(_ name: String, of model: Model, link: Link?) throws -> URL {
        if let link, let url = URL(percentEncoding: link.href, relativeTo: baseURL)?.absoluteURL { return url }
        guard let id = model.id.resourceID else {
            throw JSONAPIClientError(
                code: .invalidRequest, detail: "a \(Model.self) without an id has no relationship \"\(name)\" to load")
        }
        do {
            return try router.relatedURL(type: Model.resourceType, id: id, relationship: name, baseURL: baseURL)
        } catch let error as JSONAPIClientError {
            throw error
        } catch {
            throw JSONAPIClientError(code: .invalidRequest, detail: "the router failed: \(error)", underlyingError: error)
        }
    }

    /// Every resource of every page of `request`.
    private nonisolated func all<Target>(_ request: FetchRequest<[Target]>) async throws -> [Target] {
        var models: [Target] = []
        for try await model in request.resources() { models.append(model) }
        return models
    }

    private nonisolated func unreachable<Target: Resource>(_ type: Target.Type) -> JSONAPIClientError {
        JSONAPIClientError(
            code: .invalidRequest,
            detail: "the \(Target.resourceType) of this relationship were not included, are not in the store, and "
                + "the relationship has no related link: load it by name with the model (load(_:of:))")
    }
}
