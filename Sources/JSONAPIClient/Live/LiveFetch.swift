/// What the live objects share about fetching: the request a refresh sends, and the error a view is shown.
enum LiveFetch {
    /// `request` as a refresh sends it: one that the store would answer alone while its response is fresh
    /// (``CachePolicy/cacheFirst`` and ``CachePolicy/staleWhileRevalidate``) asks the server instead
    /// (conditionally, so an unchanged document costs a `304`); the other policies stay, so that
    /// ``CachePolicy/networkFirst`` still answers from the store offline and ``CachePolicy/cacheOnly`` sends nothing.
    static func refreshing<Primary>(_ request: FetchRequest<Primary>) -> FetchRequest<Primary> {
        let policy = request.request.cachePolicy ?? request.session.configuration.cachePolicy
        switch policy.kind {
        case .cacheFirst, .staleWhileRevalidate: return request.cachePolicy(.networkOnly)
        case .networkOnly, .networkFirst, .cacheOnly: return request
        }
    }

    /// The error to show for `error`; `nil` for a cancellation, which is no failure (the object was refreshed
    /// again, or let go of).
    static func shown(_ error: any Error) -> JSONAPIClientError? {
        if error is CancellationError { return nil }
        if let error = error as? JSONAPIClientError { return error }
        return JSONAPIClientError(
            code: .transportFailed, detail: "the request failed: \(error)", underlyingError: error)
    }
}
