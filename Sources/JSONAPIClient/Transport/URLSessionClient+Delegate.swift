import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionClient {
    /// URLSession's delegate: collects each task's body under a size limit, completes its continuation once,
    /// follows redirects only within one origin, and ends a task at once when its body would be lost on a resend.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private struct Transfer {
            var continuation: CheckedContinuation<HTTPResponse, any Error>
            var limit: Int
            var body = Data()
            /// Where the server redirected to, when the redirect was refused (another origin), and the scheme its
            /// `Location` named, when it named one.
            var refusedRedirect: (target: URL, scheme: String?)?
        }

        private let transfers = LockedValue<[Int: Transfer]>([:])
        private let challengeHandler: ChallengeHandler?

        init(challengeHandler: ChallengeHandler?) {
            self.challengeHandler = challengeHandler
        }

        func register(_ task: URLSessionTask, limit: Int, continuation: CheckedContinuation<HTTPResponse, any Error>) {
            transfers.withLock { $0[task.taskIdentifier] = Transfer(continuation: continuation, limit: limit) }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let tooLarge = transfers.withLock { transfers -> (CheckedContinuation<HTTPResponse, any Error>, Int)? in
                guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
                let announced = dataTask.response?.expectedContentLength ?? -1
                if announced > Int64(transfer.limit) || transfer.body.count + data.count > transfer.limit {
                    transfers[dataTask.taskIdentifier] = nil
                    return (transfer.continuation, transfer.limit)
                }
                transfer.body.append(data)
                transfers[dataTask.taskIdentifier] = transfer
                return nil
            }
            guard let (continuation, limit) = tooLarge else { return }
            dataTask.cancel()
            continuation.resume(
                throwing: JSONAPIClientError(
                    code: .responseTooLarge, detail: "the response body is larger than \(limit) bytes",
                    status: (dataTask.response as? HTTPURLResponse).map { HTTPResponse.Status(code: $0.statusCode) }))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let error {
                // After the headers, a failure is a response cut short, not a request the server never answered
                // (unless it is a security failure: an authentication given up on after a 401).
                if let urlError = error as? URLError, urlError.code != .cancelled, urlError.code != .timedOut,
                    URLSessionClient.securityDetail(for: urlError.code) == nil,
                    let response = task.response as? HTTPURLResponse
                {
                    transfer.continuation.resume(
                        throwing: InterruptedResponse(
                            underlying: urlError, status: response.statusCode, received: transfer.body.count,
                            expected: response.expectedContentLength))
                    return
                }
                transfer.continuation.resume(throwing: error)
                return
            }
            guard let response = task.response as? HTTPURLResponse else {
                transfer.continuation.resume(throwing: URLError(.badServerResponse))
                return
            }
            var fields = HTTPFields()
            for (name, value) in response.allHeaderFields {
                guard let name = name as? String, let value = value as? String else { continue }
                fields.append(HTTPField.Name(name), value)
            }
            let status = HTTPResponse.Status(code: response.statusCode)
            if let (target, scheme) = transfer.refusedRedirect {
                transfer.continuation.resume(
                    throwing: Self.redirectRefused(
                        from: task.originalRequest?.url, to: target, scheme: scheme, status: status, headers: fields,
                        body: transfer.body))
                return
            }
            transfer.continuation.resume(returning: HTTPResponse(status: status, headerFields: fields, body: transfer.body))
        }

        /// The error for a redirect not followed: it names the origin the server sent the client to, or the scheme
        /// its `Location` named when that is not http(s) (never the whole `Location`, which may carry a token), and
        /// keeps the redirect response.
        static func redirectRefused(
            from source: URL?, to target: URL, scheme: String? = nil, status: HTTPResponse.Status, headers: HTTPFields,
            body: Data
        ) -> JSONAPIClientError {
            let destination =
                if let scheme, !allowsScheme(scheme, from: source) { "a `\(scheme):` URL" } else {
                    Origin(target)?.description ?? "a \(target.scheme ?? "relative") URL"
                }
            let own = source.flatMap(Origin.init).map { " (\($0))" } ?? ""
            return JSONAPIClientError(
                code: .redirectRefused,
                detail: "a redirect to \(destination) was refused: redirects are followed only over http(s) within "
                    + "the request's origin\(own)",
                status: status, responseHeaders: headers, responseBody: body)
        }

        // The completion-handler form exists on Linux and Apple platforms alike: one code path for both.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            // The scheme as the server wrote it: FoundationNetworking makes `Location: file:///etc/passwd` a request
            // for `/etc/passwd` on the same origin, so the new request alone does not show it.
            let named = Self.locationScheme(of: response)
            if Self.allowsRedirect(from: task.originalRequest?.url, to: request.url, locationScheme: named) {
                completionHandler(request)
                return
            }
            let target = request.url ?? response.url ?? URL(fileURLWithPath: "/")
            transfers.withLock { $0[task.taskIdentifier]?.refusedRedirect = (target, named) }
            completionHandler(nil)
        }

        /// Every challenge, on Linux and Apple platforms alike: Apple's URLSession sends the session-level ones
        /// (server trust, client certificates) here too when, as here, the session-level method is not implemented,
        /// so pinning takes the same code path as a Basic challenge.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard let challengeHandler else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            let (disposition, credential) = challengeHandler(challenge)
            if disposition == .cancelAuthenticationChallenge {
                // Cancelling a challenge cancels the request: it ends here, at once, saying why. URLSession then
                // cancels the task, whose completion finds no transfer. (FoundationNetworking was seen, under the
                // load of a sanitized test run, not to complete such a task at all: the call waited for its timeout.)
                let space = challenge.protectionSpace
                let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
                transfer?.continuation.resume(
                    throwing: CancelledChallenge(
                        authenticationMethod: space.authenticationMethod, host: "\(space.host):\(space.port)",
                        underlying: URLError(.cancelled)))
            }
            // FoundationNetworking force-unwraps the credential of `.useCredential`: without one it means default
            // handling, on every platform alike.
            guard disposition != .useCredential || credential != nil else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            completionHandler(disposition, credential)
        }

        /// FoundationNetworking (libcurl) asks for the body again when it resends a request on a fresh connection
        /// because a reused keep-alive connection died under it. It cannot rewind a `Data` body: the resent request
        /// would announce the body's length, send none of it, and wait for the timeout. So the task ends here at
        /// once as a lost connection, which ``URLSessionClient/send(_:)`` sends again when the method is idempotent.
        /// (Apple's URLSession resends a `Data` body itself and asks only for body streams, which this client never
        /// sends.)
        func urlSession(
            _ session: URLSession, task: URLSessionTask,
            needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
        ) {
            completionHandler(nil)
            guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            // Cancelling waits for the task's queue, which is busy calling this method: cancel from elsewhere.
            DispatchQueue.global().async { task.cancel() }
            transfer.continuation.resume(throwing: URLError(.networkConnectionLost))
        }

        static func allowsRedirect(from source: URL?, to target: URL?, locationScheme: String? = nil) -> Bool {
            guard let source, let target, let from = Origin(source), let to = Origin(target) else { return false }
            if let locationScheme, !allowsScheme(locationScheme, from: source) { return false }
            return from == to
        }

        /// Whether a redirect may name `scheme`: the request's own, `http` or `https`.
        static func allowsScheme(_ scheme: String, from source: URL?) -> Bool {
            scheme == "http" || scheme == "https" || scheme == source?.scheme?.lowercased()
        }

        /// The scheme the redirect's `Location` names (lowercased), or `nil` for a relative reference or none.
        static func locationScheme(of response: HTTPURLResponse) -> String? {
            let location = response.allHeaderFields.first { ($0.key as? String)?.lowercased() == "location" }?.value
            return (location as? String).flatMap(scheme(ofReference:))
        }

        /// The scheme of a URI reference (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then `:`).
        static func scheme(ofReference reference: String) -> String? {
            let text = reference.trimmingCharacters(in: .whitespaces)
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let name = text[..<colon]
            guard let first = name.first, first.isASCII, first.isLetter,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else { return nil }
            return name.lowercased()
        }
    }
}

/// A transport failure after the response's headers arrived: the body was cut short.
struct InterruptedResponse: Error {
    var underlying: URLError
    var status: Int
    /// The body bytes received before the failure.
    var received: Int
    /// The body's announced length (`Content-Length`), or -1.
    var expected: Int64

    /// What the error says: the status, and how much of the body came.
    var detail: String {
        let of = expected >= 0 ? " of \(expected)" : ""
        return "the connection failed in the middle of the response (HTTP \(status)): after its headers and "
            + "\(received)\(of) body bytes (\(underlying.localizedDescription))"
    }
}
