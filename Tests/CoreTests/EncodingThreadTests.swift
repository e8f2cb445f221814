// Tests that an encoder or container used on another thread than its encode's throws `wrongThread`: an encode's
// state (the context's caches, the capture a model writes into) is one thread's, so such a use would otherwise race
// it.
import Dispatch
import Foundation
import Testing

@testable import JSONAPIClientCore

/// Lets a non-`Sendable` value cross to another thread, as a Swift 5 mode module (or an `@unchecked` wrapper) can.
private struct Smuggled<Value>: @unchecked Sendable {
    var value: Value
}

/// What the other thread's writes threw, behind a lock.
private final class Errors: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [(any Error)?] = []

    func record(_ body: () throws -> Void) {
        var caught: (any Error)?
        do { try body() } catch { caught = error }
        lock.lock()
        defer { lock.unlock() }
        errors.append(caught)
    }

    var all: [(any Error)?] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}

/// How a model's `encode(to:)` misuses its encoder, on a thread of its own.
private enum Misuse: Sendable, CaseIterable {
    /// Writes an attribute, its id, a relationship and a nested container through its keyed container.
    case container
    /// Asks its encoder for a keyed, an unkeyed and a single-value container.
    case encoder
    /// Writes through the keyed, unkeyed and single-value containers of a plain value's encoder (an attribute).
    case valueContainers
}

private struct Tag: Encodable {
    var misuse: Misuse
    var errors: Errors

    enum CodingKeys: String, CodingKey { case name }

    func encode(to encoder: any Encoder) throws {
        // Written first, so that a container asked for on the other thread could only overwrite it by touching the
        // value's storage.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("kept", forKey: .name)
        let shared = Smuggled(value: encoder)
        onDetachedThread {
            errors.record {
                var keyed = shared.value.container(keyedBy: CodingKeys.self)
                try keyed.encode("x", forKey: .name)
            }
            errors.record {
                var unkeyed = shared.value.unkeyedContainer()
                try unkeyed.encode(1)
            }
            errors.record {
                var single = shared.value.singleValueContainer()
                try single.encode(true)
            }
        }
    }
}

private struct Author: Resource {
    static let resourceType = "people"
    var id: String
}

private struct MisusingArticle: Resource {
    static let resourceType = "articles"
    enum CodingKeys: String, CodingKey { case id, title, author, tag }
    var id: String
    var title: String
    var misuse: Misuse
    var errors: Errors

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let shared = Smuggled(value: container)
        let sharedEncoder = Smuggled(value: encoder)
        switch misuse {
        case .container:
            onDetachedThread {
                var other = shared.value
                errors.record { try other.encode("stolen", forKey: .title) }
                errors.record { try other.encode("9", forKey: .id) }
                errors.record { try other.encode(7, forKey: .id) }
                errors.record { try other.encode(Author(id: "9"), forKey: .author) }
                errors.record { try other.encodeNil(forKey: .title) }
                errors.record {
                    var nested = other.nestedContainer(keyedBy: CodingKeys.self, forKey: .tag)
                    try nested.encode("x", forKey: .title)
                }
                errors.record {
                    var nested = other.nestedUnkeyedContainer(forKey: .tag)
                    try nested.encode("x")
                }
            }
        case .encoder:
            onDetachedThread {
                errors.record {
                    var keyed = sharedEncoder.value.container(keyedBy: CodingKeys.self)
                    try keyed.encode("stolen", forKey: .title)
                }
                errors.record {
                    var unkeyed = sharedEncoder.value.unkeyedContainer()
                    try unkeyed.encode("stolen")
                }
                errors.record {
                    var single = sharedEncoder.value.singleValueContainer()
                    try single.encode(Author(id: "9"))
                }
            }
        case .valueContainers:
            try container.encode(Tag(misuse: misuse, errors: errors), forKey: .tag)
        }
        // The encode's own thread still writes as usual afterwards.
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
    }

    init(id: String, title: String, misuse: Misuse, errors: Errors) {
        (self.id, self.title, self.misuse, self.errors) = (id, title, misuse, errors)
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "encode-only"))
    }
}

/// Runs `body` on a thread of its own and waits for it (at most a minute, so a broken test fails, never hangs).
private func onDetachedThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    _ = done.wait(timeout: .now() + 60)
}

@Suite("Encoders used on another thread")
struct EncodingThreadTests {
    private func isWrongThread(_ error: (any Error)?) -> Bool {
        guard case .invalidValue(_, let context)? = error as? EncodingError else { return false }
        return context.debugDescription.hasPrefix("wrongThread")
    }

    @Test("Every write through a model's encoder or container on another thread throws wrongThread", arguments: Misuse.allCases)
    fileprivate func misuse(_ misuse: Misuse) throws {
        let errors = Errors()
        let article = MisusingArticle(id: "1", title: "One", misuse: misuse, errors: errors)
        let attributes = misuse == .valueContainers ? #"{"tag":{"name":"kept"},"title":"One"}"# : #"{"title":"One"}"#
        // A compound document and a request body: nothing the other thread tried was written.
        let document = String(decoding: try JSONAPIEncoder().encode(Document(data: [article])), as: UTF8.self)
        #expect(document == #"{"data":[{"attributes":\#(attributes),"id":"1","type":"articles"}]}"#)
        let body = String(decoding: try JSONAPIEncoder().encodeCreateBody(for: article), as: UTF8.self)
        #expect(body == #"{"data":{"attributes":\#(attributes),"id":"1","type":"articles"}}"#)
        let all = errors.all
        #expect(!all.isEmpty)
        #expect(all.allSatisfy(isWrongThread))
    }
}
