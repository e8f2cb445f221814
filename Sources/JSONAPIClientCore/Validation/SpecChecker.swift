/// The walk behind ``DocumentValidator``: one pass over a parsed document's tape that collects the violations of
/// JSON:API 1.1's MUST rules, each with its JSON pointer.
///
/// Every object of the document is visited once — an object the specification defines by the rule for its role,
/// anything else as free-form JSON — so the work is linear in the document. The current location is a stack of
/// steps, rendered as a pointer only when something is reported.
struct SpecChecker {
    /// One step of a location.
    enum Step {
        /// Into the member whose key is the tape node at this index.
        case member(Int)
        /// Into the array element at this position.
        case element(Int)
    }

    /// A member of an object: its name, and the tape nodes of its key and value.
    struct Member {
        let name: String
        let key: Int
        let value: Int
    }

    /// A violation and where in the document it was found, for putting them in document order.
    private struct Found {
        var node: Int
        var sequence: Int
        var violation: SpecViolation
    }

    let tape: JSONTape
    let kind: DocumentValidator.Kind
    private var found: [Found] = []
    private var path: [Step] = []
    /// The resources and linkage seen so far, for unique identification and full linkage.
    var linkage = LinkageGraph()

    init(tape: JSONTape, kind: DocumentValidator.Kind) {
        self.tape = tape
        self.kind = kind
    }

    /// The violations, in document order (by the node they concern; in the order found for the same node).
    func orderedViolations() -> [SpecViolation] {
        found.sorted { ($0.node, $0.sequence) < ($1.node, $1.sequence) }.map(\.violation)
    }

    // MARK: Location and reporting

    /// The JSON pointer of the current location.
    var pointer: String {
        var text = ""
        for step in path {
            switch step {
            case .member(let key): text += "/" + JSONTape.escapePointerToken(tape.string(key))
            case .element(let position): text += "/\(position)"
            }
        }
        return text
    }

    /// Reports `message` at the current location, which is the tape node `node`.
    mutating func report(_ message: String, node: Int) {
        report(message, node: node, pointer: pointer)
    }

    /// Reports `message` at `pointer`, the location of the tape node `node`.
    mutating func report(_ message: String, node: Int, pointer: String) {
        found.append(Found(node: node, sequence: found.count, violation: SpecViolation(pointer: pointer, message: message)))
    }

    /// Reports `message` at `member` of the object at the current location.
    mutating func report(_ message: String, at member: Member) {
        inside(member) { $0.report(message, node: member.value) }
    }

    /// Runs `body` with the location moved into `member`.
    mutating func inside(_ member: Member, _ body: (inout SpecChecker) -> Void) {
        path.append(.member(member.key))
        body(&self)
        path.removeLast()
    }

    /// Runs `body` with the location moved into the array element at `position`.
    mutating func inside(element position: Int, _ body: (inout SpecChecker) -> Void) {
        path.append(.element(position))
        body(&self)
        path.removeLast()
    }

    // MARK: Reading the tape

    /// The members of the object at `node`, in document order. Reports every repeated name: RFC 8259 says names
    /// should be unique, and readers disagree about which one counts (this library, like most, takes the last).
    mutating func members(of node: Int) -> [Member] {
        let count = tape.count(node)
        var members: [Member] = []
        members.reserveCapacity(count)
        var names: Set<String> = []
        if count > 1 { names.reserveCapacity(count) }
        var key = node + 1
        for _ in 0..<count {
            let member = Member(name: tape.string(key), key: key, value: key + 1)
            if count > 1, !names.insert(member.name).inserted {
                inside(member) { $0.report("the member name \"\(member.name)\" appears more than once in this object", node: member.key) }
            }
            members.append(member)
            key = tape.skip(key + 1)
        }
        return members
    }

    /// The tape nodes of the elements of the array at `node`, in order.
    func elements(of node: Int) -> [Int] {
        var elements: [Int] = []
        elements.reserveCapacity(tape.count(node))
        var index = node + 1
        for _ in 0..<tape.count(node) {
            elements.append(index)
            index = tape.skip(index)
        }
        return elements
    }

    /// The string at `node`, when it is one.
    func string(_ node: Int) -> String? { tape.kind(node) == .string ? tape.string(node) : nil }

    /// Whether the value at `node` is an object; when not, reports that `what` must be one. `null` gets its own
    /// message: the decoder reads it as absent, but the specification allows only an object or no member at all.
    mutating func requireObject(_ node: Int, _ what: String) -> Bool {
        switch tape.kind(node) {
        case .object: return true
        case .null: report("\(what) must be an object, not null (leave the member out instead)", node: node)
        default: report("\(what) must be an object", node: node)
        }
        return false
    }

    // MARK: Free-form JSON

    /// Walks a value the specification does not define (an attribute's value, a meta object, an unknown member):
    /// reports repeated member names and, with `checkingNames`, member names that are not legal.
    mutating func freeForm(_ node: Int, checkingNames: Bool) {
        switch tape.kind(node) {
        case .object:
            for member in members(of: node) {
                if checkingNames, !MemberName.isLegal(member.name) {
                    report("\"\(member.name)\" is not a legal member name", at: member)
                }
                inside(member) { $0.freeForm(member.value, checkingNames: checkingNames) }
            }
        case .array:
            for (position, element) in elements(of: node).enumerated() {
                inside(element: position) { $0.freeForm(element, checkingNames: checkingNames) }
            }
        default:
            break
        }
    }

    /// A member that `what` (e.g. "a resource object") does not define: `@`-members and extension members
    /// (`ns:name`) are allowed, anything else is reported. Its value is still walked for repeated member names.
    mutating func otherMember(_ member: Member, of what: String) {
        if !member.name.hasPrefix("@"), !MemberName.isExtensionMember(member.name) {
            if MemberName.isLegal(member.name) {
                report("\(what) must not contain the member \"\(member.name)\"", at: member)
            } else {
                report("\"\(member.name)\" is not a legal member name", at: member)
            }
        }
        inside(member) { $0.freeForm(member.value, checkingNames: false) }
    }

    /// A meta object: any members, with legal names.
    mutating func meta(_ member: Member) {
        inside(member) {
            if $0.requireObject(member.value, "meta") { $0.freeForm(member.value, checkingNames: true) }
        }
    }
}
