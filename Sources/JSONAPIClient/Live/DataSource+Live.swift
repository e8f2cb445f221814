/// Live objects for a data source's resources.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension DataSource {
    /// Resource `id`, as a ``LiveResource`` that follows the session's store from now on (`GET /articles/1`, by the
    /// source's URL strategy). Nothing is sent until its `load()` or `refresh()`; for `include` or sparse fieldsets,
    /// use `fetch(id:)` and ``FetchRequest/live()``.
    ///
    /// - Parameter id: The resource's id.
    /// - Returns: A new live resource, on the main actor.
    @MainActor
    public func live(id: String) -> LiveResource<Model> {
        LiveResource(request: fetch(id: id), id: id)
    }
}
