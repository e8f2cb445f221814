import JSONAPIClient

/// How a failed request is reported on standard error: `Error: HTTP 404 from GET https://…`, then the server's error
/// objects, the decoding error or the body.
enum ErrorReport {
    static func describe(_ error: JSONAPIClientError) -> String {
        var lines: [String] = []
        var head = "Error: "
        if error.code == .redirectRefused {
            // What happened is the refusal, not the status: the server answered with a redirect the tool did not
            // follow (another origin), and the detail names where it led.
            head += "redirect refused"
            if let status = error.status { head += " (HTTP \(status.code))" }
        } else if let status = error.status {
            head += "HTTP \(status.code)"
        } else {
            head += "\(error.code)"
        }
        if let method = error.method, let url = error.url { head += " from \(method) \(url.absoluteString)" }
        lines.append(head)
        if error.code == .redirectRefused {
            lines.append("  \(error.detail)")
        } else if let decoding = error.decodingError {
            // The decoding error's description starts with its pointer; the detail repeats the description.
            lines.append("  not the expected document: \(decoding)")
        } else if error.status == nil || error.errors.isEmpty {
            lines.append("  \(error.detail)")
        }
        for object in error.errors { lines.append("  error: \(object)") }
        if error.errors.isEmpty, error.decodingError == nil, let text = error.responseText, !text.isEmpty {
            lines.append("  body: " + (text.count > 2_000 ? String(text.prefix(2_000)) + "…" : text))
        }
        return lines.joined(separator: "\n")
    }
}
