import Foundation
import JSONAPIClientCore
import Testing

/// The server's id in place of a local id in a request body: only where JSON:API names resources.
@Suite("Local ids replaced in request bodies")
struct LocalIDReplacementTests {
    static let ids = ["articles a1": "10", "people p1": "20", "tags t1": "30"]

    func replaced(_ body: String) -> String? {
        LocalIDReplacement.replacing(in: Data(body.utf8), decoder: JSONAPIDecoder()) { Self.ids["\($0) \($1)"] }
            .map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("Primary data, its relationships (to-one and to-many) and included; the rest stays")
    func document() {
        let body = #"{"data":{"type":"articles","lid":"a1","attributes":{"title":"T","ref":{"type":"people","lid":"p1"}},"#
            + #""relationships":{"author":{"data":{"type":"people","lid":"p1"}},"tags":{"data":[{"type":"tags","lid":"t1"},"#
            + #"{"type":"tags","lid":"t2"},{"type":"tags","id":"5"}]},"none":{"data":null},"links":{"links":{"related":"x"}}}},"#
            + #""included":[{"type":"people","lid":"p1","meta":{"m":{"type":"tags","lid":"t1"}}}]}"#
        #expect(replaced(body) == #"{"data":{"attributes":{"ref":{"lid":"p1","type":"people"},"title":"T"},"id":"10","#
            + #""relationships":{"author":{"data":{"id":"20","type":"people"}},"links":{"links":{"related":"x"}},"none":{"data":null},"#
            + #""tags":{"data":[{"id":"30","type":"tags"},{"lid":"t2","type":"tags"},{"id":"5","type":"tags"}]}},"type":"articles"},"#
            + #""included":[{"id":"20","meta":{"m":{"lid":"t1","type":"tags"}},"type":"people"}]}"#)
    }

    @Test("Identifiers as primary data: a relationship body, to-one and to-many")
    func identifiers() {
        #expect(replaced(#"{"data":{"type":"tags","lid":"t1"}}"#) == #"{"data":{"id":"30","type":"tags"}}"#)
        #expect(replaced(#"{"data":[{"type":"tags","lid":"t1"},{"type":"people","lid":"p1"}]}"#)
            == #"{"data":[{"id":"30","type":"tags"},{"id":"20","type":"people"}]}"#)
    }

    @Test("Atomic operations: ref and data of each operation")
    func operations() {
        let body = #"{"atomic:operations":[{"op":"update","ref":{"type":"articles","lid":"a1","relationship":"author"},"#
            + #""data":{"type":"people","lid":"p1"}},{"op":"add","data":{"type":"articles","lid":"new"}},"oops"]}"#
        #expect(replaced(body) == #"{"atomic:operations":[{"data":{"id":"20","type":"people"},"op":"update","#
            + #""ref":{"id":"10","relationship":"author","type":"articles"}},{"data":{"lid":"new","type":"articles"},"op":"add"},"oops"]}"#)
    }

    @Test("Nothing to replace: nil, so the body goes as encoded")
    func unchanged() {
        #expect(replaced(#"{"data":{"type":"articles","lid":"zz"}}"#) == nil)
        // An identifier with an id is left as it is, lid and all.
        #expect(replaced(#"{"data":{"type":"articles","id":"1","lid":"a1"}}"#) == nil)
        // A lid that is not a string, a type that is not one, a missing type.
        #expect(replaced(#"{"data":{"type":"articles","lid":1}}"#) == nil)
        #expect(replaced(#"{"data":{"type":5,"lid":"a1"}}"#) == nil)
        #expect(replaced(#"{"data":{"lid":"a1"}}"#) == nil)
        #expect(replaced(#"{"meta":{"type":"articles","lid":"a1"}}"#) == nil)
        #expect(replaced(#"[{"type":"articles","lid":"a1"}]"#) == nil)
        #expect(replaced("not json") == nil)
        #expect(replaced(#"{"data":{"type":"articles","lid":"zz","relationships":"odd"}}"#) == nil)
        #expect(replaced(#"{"data":{"type":"articles","relationships":{"a":"odd","b":{"links":{}}}}}"#) == nil)
    }

    @Test("Numbers are written back as they were read")
    func numbers() {
        #expect(replaced(#"{"data":{"type":"tags","lid":"t1","attributes":{"n":12345678901234567890123,"d":0.1,"i":7}}}"#)
            == #"{"data":{"attributes":{"d":0.1,"i":7,"n":12345678901234567890123},"id":"30","type":"tags"}}"#)
    }
}
