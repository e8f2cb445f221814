// Fuzz target: the validator, for each kind of document it judges; a document it finds valid must decode.
import Foundation
import JSONAPIClientCore

/// Each kind of document the validator judges, with how to validate it. A new kind is one line here.
private let kinds: [(name: String, validate: @Sendable (Data) throws -> [SpecViolation])] = [
    ("response", { try DocumentValidator.validate($0) }),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidate(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = fuzzInput(bytes, count)
    for kind in kinds {
        guard let violations = try? kind.validate(data) else { continue }
        for violation in violations {
            // By bytes: a member name that starts with a combining mark joins the "/" into one Character.
            check(violation.pointer.isEmpty || violation.pointer.utf8.first == UInt8(ascii: "/"), "\(kind.name): pointer \(violation)")
        }
        // "Valid 1.1 documents are accepted": a response the validator passes decodes.
        if kind.name == "response", violations.isEmpty {
            do {
                _ = try JSONAPIDecoder().decode(RawDocument.self, from: data)
            } catch {
                check(false, "valid per the validator but the decoder says \(error): \(String(decoding: data, as: UTF8.self))")
            }
        }
    }
    return 0
}
