/// The benchmark's input: a deterministic compound document of N articles, each with an author and three comments,
/// and what a correct decode of it must give (counts and checksums), computed while writing it.
///
/// `data` holds N `articles` (title 30–60 characters, body about 200, `created` ISO 8601, `viewCount`, three `tags`;
/// to-one `author` → `people`, to-many `comments` → three `comments`); `included` holds the N/10 people, then all
/// 3N comments (body about 100 characters, to-one `author` → `people`). Compact, ASCII, members in the order servers
/// usually write them (`type`, `id`, `attributes`, `relationships`).
struct GeneratedDocument {
    let articleCount: Int
    let peopleCount: Int
    let commentCount: Int
    let bytes: [UInt8]
    /// What the identifier-level decodes must give: titles, author ids and comment ids, in order.
    let identifierChecksum: UInt64
    /// What the resolving decodes must give: titles, the author's name, each comment's author's name, in order.
    let resolvedChecksum: UInt64
    /// People referenced as authors of articles or comments (what an encoder writes to `included`).
    let referencedPeopleCount: Int

    /// `firstArticle` numbers the articles (and their comments) from there on, so that pages of one collection do
    /// not repeat ids; `links` is written as the top-level `links` member.
    /// - Parameter peopleSeed: Draws the people's names from a generator of their own, so that the pages of one
    ///   collection agree on each person (as a server's do); `nil` draws them from `seed`, as every page did before.
    init(articles: Int, seed: UInt64 = 0x5EED_0001, firstArticle: Int = 1, links: String? = nil, peopleSeed: UInt64? = nil) {
        let articles = max(1, articles)
        let offset = max(firstArticle, 1) - 1
        var random = SplitMix64(seed: seed)
        let people = max(1, articles / 10)
        articleCount = articles
        peopleCount = people
        commentCount = 3 * articles

        var names: [String] = []
        names.reserveCapacity(people)
        var out = Output(capacity: articles * 1_400)
        var identifiers = Checksum()
        var resolved = Checksum()
        var referenced = Set<Int>()

        var own = peopleSeed.map(SplitMix64.init(seed:))
        for _ in 0..<people {
            let first = Vocabulary.firstNames[own?.below(Vocabulary.firstNames.count) ?? random.below(Vocabulary.firstNames.count)]
            let last = Vocabulary.lastNames[own?.below(Vocabulary.lastNames.count) ?? random.below(Vocabulary.lastNames.count)]
            names.append("\(first) \(last)")
        }
        let commentAuthors = (0..<3 * articles).map { _ in random.below(people) + 1 }

        out.raw("{\"data\":[")
        for article in 1...articles {
            if article > 1 { out.raw(",") }
            let title = random.text(length: 30 + random.below(31))
            let body = random.text(length: 190 + random.below(21))
            let created = random.isoDate()
            let views = random.below(100_000)
            let tags = (0..<3).map { _ in Vocabulary.tags[random.below(Vocabulary.tags.count)] }
            let author = random.below(people) + 1
            referenced.insert(author)
            out.raw("{\"type\":\"articles\",\"id\":\"\(offset + article)\",\"attributes\":{\"title\":")
            out.string(title)
            out.raw(",\"body\":")
            out.string(body)
            out.raw(",\"created\":\"\(created)\",\"viewCount\":\(views),\"tags\":[")
            out.string(tags[0]); out.raw(","); out.string(tags[1]); out.raw(","); out.string(tags[2])
            out.raw("]},\"relationships\":{\"author\":{\"data\":{\"type\":\"people\",\"id\":\"\(author)\"}},")
            out.raw("\"comments\":{\"data\":[")
            identifiers.add(title)
            identifiers.add(String(author))
            resolved.add(title)
            resolved.add(names[author - 1])
            for c in 0..<3 {
                let comment = 3 * (article - 1) + c + 1
                if c > 0 { out.raw(",") }
                out.raw("{\"type\":\"comments\",\"id\":\"\(3 * offset + comment)\"}")
                identifiers.add(String(3 * offset + comment))
                let commentAuthor = commentAuthors[comment - 1]
                referenced.insert(commentAuthor)
                resolved.add(names[commentAuthor - 1])
            }
            out.raw("]}}}")
        }
        out.raw("],\"included\":[")
        for person in 1...people {
            if person > 1 { out.raw(",") }
            let name = names[person - 1]
            let email = name.lowercased().replacingOccurrences(of: " ", with: ".") + "\(person)@example.com"
            out.raw("{\"type\":\"people\",\"id\":\"\(person)\",\"attributes\":{\"name\":")
            out.string(name)
            out.raw(",\"email\":")
            out.string(email)
            out.raw("}}")
        }
        for comment in 0..<(3 * articles) {
            let body = random.text(length: 90 + random.below(21))
            out.raw(",{\"type\":\"comments\",\"id\":\"\(3 * offset + comment + 1)\",\"attributes\":{\"body\":")
            out.string(body)
            out.raw("},\"relationships\":{\"author\":{\"data\":{\"type\":\"people\",\"id\":\"\(commentAuthors[comment])\"}}}}")
        }
        out.raw("]")
        if let links { out.raw(",\"links\":\(links)") }
        out.raw("}")

        bytes = out.bytes
        identifierChecksum = identifiers.value
        resolvedChecksum = resolved.value
        referencedPeopleCount = referenced.count
    }
}

/// FNV-1a over a sequence of strings (each followed by a separator byte).
struct Checksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0xFF)
    }

    mutating func add(_ number: Int) { add(String(number)) }

    private mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}

/// A small, fast, deterministic generator (Steele, Lea & Flood's SplitMix64).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// Words separated by spaces, exactly `length` characters, not ending in a space.
    mutating func text(length: Int) -> String {
        var text = ""
        text.reserveCapacity(length + 12)
        while text.utf8.count < length {
            if !text.isEmpty { text += " " }
            text += Vocabulary.words[below(Vocabulary.words.count)]
        }
        var result = String(text.utf8.prefix(length)) ?? text
        if result.hasSuffix(" ") { result.removeLast(); result += "s" }
        if result.first?.isLetter == true { result = result.prefix(1).uppercased() + result.dropFirst() }
        return result
    }

    /// A date between 2020 and 2023, written `YYYY-MM-DDTHH:MM:SSZ`.
    mutating func isoDate() -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = 2020 + below(4), month = 1 + below(12), day = 1 + below(28)
        let hour = below(24), minute = below(60), second = below(60)
        return "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))Z"
    }
}

/// Appends compact JSON text.
private struct Output {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// The generator only writes ASCII letters, digits, spaces and punctuation that need no escaping.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }
}

enum Vocabulary {
    static let words = [
        "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod",
        "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim", "ad", "minim", "veniam",
        "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip", "ex", "ea", "commodo",
        "consequat", "duis", "aute", "irure", "in", "reprehenderit", "voluptate", "velit", "esse", "cillum",
        "fugiat", "nulla", "pariatur", "excepteur", "sint", "occaecat", "cupidatat", "non", "proident", "sunt",
        "culpa", "qui", "officia", "deserunt", "mollit", "anim", "id", "est", "laborum", "swift", "parser",
        "resource", "relationship", "document", "server", "client", "network", "latency", "cache", "index",
    ]
    static let tags = [
        "swift", "json", "api", "news", "sports", "science", "travel", "music", "food", "tech", "design",
        "health", "finance", "culture", "opinion", "world",
    ]
    static let firstNames = [
        "Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Dennis", "Frances", "John",
        "Radia", "Tim", "Leslie", "Shafi", "Niklaus", "Tony", "Robin", "Judea", "Whitfield",
    ]
    static let lastNames = [
        "Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Thompson", "Ritchie", "Allen",
        "McCarthy", "Perlman", "Lee", "Lamport", "Goldwasser", "Wirth", "Hoare", "Milner", "Pearl", "Diffie",
    ]
}
