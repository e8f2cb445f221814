import Foundation

/// The `GET`s a session has on the network, so that identical ones asked for at the same time share one exchange.
///
/// The exchange runs in a task of its own: a waiter that is cancelled stops waiting (it gets `CancellationError`)
/// without cancelling it for the others; when the last waiter leaves, the exchange is cancelled.
final class InFlightRequests: Sendable {
    private struct Flight {
        /// The waiter that started it: another flight under the same key is another exchange.
        var starter: UInt64
        var waiters: [UInt64: CheckedContinuation<HTTPResponse, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    private let flights = LockedValue<[String: Flight]>([:])
    private let counter = LockedValue<UInt64>(0)

    /// The key of a request as the transport gets it: identical requests (method, URL, header fields in order,
    /// credentials included) share an exchange, so two users' requests never do. The credentials are in the key as
    /// their digest, not as themselves.
    ///
    /// - Parameters:
    ///   - request: The request as the transport gets it.
    ///   - credentials: The digest of its credentials, when the caller has it already.
    static func key(for request: HTTPRequest, credentials: CredentialDigest? = nil) -> String {
        var key = request.method.rawValue + " " + request.url.absoluteString
        for field in request.headerFields where !CredentialDigest.credentialFields.contains(field.name) {
            key += "\n" + field.name.rawName.lowercased() + ": " + field.value
        }
        let digest = credentials ?? CredentialDigest(credentialsOf: request.headerFields)
        return key + "\ncredentials: " + digest.description
    }

    /// Starts an exchange's task. Where the platform has it, the task begins at once on this thread and runs until it
    /// first suspends: an exchange that never does (a transport answering from memory) then costs no thread hop at
    /// all, where a plain task would wake another thread for it and then this one again (15 % of a page walk).
    /// `Task.immediate` is declared from Swift 6.2 on; the compiler check keeps the file building with the 6.0 and
    /// 6.1 toolchains the package declares, where the run-time check alone would not compile.
    private static func start(_ run: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: run)
        }
        #endif
        return Task(operation: run)
    }

    /// The response of the exchange under `key`: joins the one in flight, or starts `exchange`.
    func response(
        for key: String, exchange: @escaping @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let waiter = counter.withLock { counter in
            counter += 1
            return counter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let starts = flights.withLock { flights -> Bool? in
                    // Cancelled before it was registered: the cancellation handler found no waiter to resume.
                    if Task.isCancelled { return nil }
                    if flights[key] != nil {
                        flights[key]?.waiters[waiter] = continuation
                        return false
                    }
                    flights[key] = Flight(starter: waiter, waiters: [waiter: continuation])
                    return true
                }
                guard let starts else { return continuation.resume(throwing: CancellationError()) }
                guard starts else { return }
                let run: @Sendable () async -> Void = { [flights] in
                    let result: Result<HTTPResponse, any Error>
                    do {
                        result = .success(try await exchange())
                    } catch {
                        result = .failure(error)
                    }
                    // An abandoned exchange finishing late leaves a newer one under the same key alone.
                    let waiters = flights.withLock { flights in
                        flights[key]?.starter == waiter ? flights.removeValue(forKey: key)?.waiters ?? [:] : [:]
                    }
                    for continuation in waiters.values { continuation.resume(with: result) }
                }
                let task = Self.start(run)
                // An immediate task runs until it first suspends before its handle is kept: its last waiter may have
                // left meanwhile, finding no handle to cancel. Then it is cancelled here (when it has finished
                // instead, cancelling it does nothing).
                let kept = flights.withLock { flights -> Bool in
                    guard flights[key]?.starter == waiter else { return false }
                    flights[key]?.task = task
                    return true
                }
                if !kept { task.cancel() }
            }
        } onCancel: {
            let (continuation, abandoned) = flights.withLock {
                flights -> (CheckedContinuation<HTTPResponse, any Error>?, Task<Void, Never>?) in
                guard let continuation = flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
                guard flights[key]?.waiters.isEmpty == true else { return (continuation, nil) }
                return (continuation, flights.removeValue(forKey: key)?.task)
            }
            continuation?.resume(throwing: CancellationError())
            abandoned?.cancel()
        }
    }
}
