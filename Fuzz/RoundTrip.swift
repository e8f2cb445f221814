// Fuzz target: a document that decodes encodes, and decodes again to an equal document (schema-less and typed).
import Foundation
import JSONAPIClientCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: start, count: count)
    let data = Data(input)
    let decoder = JSONAPIDecoder(), encoder = JSONAPIEncoder()
    guard let document = try? decoder.decode(RawDocument.self, from: data) else { return 0 }
    let written: Data
    do { written = try encoder.encode(document) } catch { fuzzFailure("a decoded document does not encode: \(error)", input) }
    let again: RawDocument
    do { again = try decoder.decode(RawDocument.self, from: written) } catch {
        fuzzFailure("an encoded document does not decode: \(error)\nwritten: \(String(decoding: written, as: UTF8.self))", input)
    }
    guard again == document else {
        fuzzFailure("decode → encode → decode differs\nwritten: \(String(decoding: written, as: UTF8.self))", input)
    }
    // Typed: when the primary data is notes (a model reads any resource it is given, whatever its type).
    if document.data?.resources.allSatisfy({ $0.type == FuzzNote.resourceType }) == true,
        let document = try? decoder.decode(Document<[FuzzNote]>.self, from: data)
    {
        let written: Data
        do { written = try encoder.encode(document) } catch { fuzzFailure("typed: does not encode: \(error)", input) }
        let again: Document<[FuzzNote]>
        do { again = try decoder.decode(Document<[FuzzNote]>.self, from: written) } catch {
            fuzzFailure("typed: encoded document does not decode: \(error)\nwritten: \(String(decoding: written, as: UTF8.self))", input)
        }
        guard again.data == document.data else {
            fuzzFailure("typed: decode → encode → decode differs\nwritten: \(String(decoding: written, as: UTF8.self))", input)
        }
    }
    return 0
}
