/// Live objects for a request: the resource or the list it fetches, kept up to date for a view.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension FetchRequest where Primary: Resource {
    /// The resource this request fetches, as a ``LiveResource`` that follows the session's store once it knows the
    /// resource's id (from the first response). Nothing is sent until its `load()` or `refresh()`.
    ///
    /// ```swift
    /// let me = people.fetch(as: Person.self).live()          // GET /people, a singleton such as /me
    /// ```
    ///
    /// - Returns: A new live resource, on the main actor.
    @MainActor
    public func live() -> LiveResource<Primary> {
        LiveResource(request: self, id: nil)
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension FetchRequest {

    /// The resources of this collection request, as a ``LiveList`` that pages on with `loadMore()` and follows the
    /// session's store. Nothing is sent until its `load()` or `refresh()`.
    ///
    /// - Parameter prefetch: How many pages to ask for ahead of the view; 1 by default, 0 for none.
    /// - Returns: A new live list, on the main actor.
    @MainActor
    public func liveList<Model: Resource>(prefetch: Int = 1) -> LiveList<Model> where Primary == [Model] {
        LiveList(request: self, prefetch: prefetch)
    }
}
