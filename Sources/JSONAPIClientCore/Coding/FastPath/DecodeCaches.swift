/// What one typed decode keeps so that it does no work twice: the keyed containers it hands out again, the models
/// of resources that many relationships name, which resources relationships have reached, the role of each type,
/// the member names under the key strategy, and the members of the resource a model is about to read.
///
/// One value, held by ``ResourceDecodingContext`` and reached only through it, on the decode's thread
/// (``DecodingThread``). The invariants it relies on are in `README.md` beside this file.
struct DecodeCaches {
    /// Keyed containers handed out again once nothing holds them (`decode-typed` −4.5 %, `decode-nested` −9 %).
    var containers: DecodingContainerPool
    /// The model decoded from each resource that relationships lead to more than once, or the error its decoding
    /// threw, by resource and model type: such a resource is decoded at most twice per type however many
    /// relationships name it, so that the work is linear in the document whatever the shape of its graph.
    var sharedModels = SharedModelTable()
    /// One bit per tape node: resources a relationship has led to before.
    private var reached: [UInt64] = []
    /// The role of each type decoded so far.
    var roles = DecodingRoleTable()
    /// Member names under the key strategy, by property name.
    var wireNames = WireNames()
    /// The members of the resource whose type was checked last, and its tape index: the model's container takes
    /// them rather than finding them again (one pass over a resource's members instead of two).
    private var upcoming: (index: Int, members: ResourceMembers) = (-1, ResourceMembers())

    /// Empty caches; `poolsContainers: false` hands out a new container every time (the plain path).
    init(poolsContainers: Bool) {
        containers = DecodingContainerPool(isEnabled: poolsContainers)
    }

    /// Marks the resource at `index` of a tape of `nodeCount` nodes as reached through a relationship; returns
    /// whether it was before.
    mutating func reachedBefore(_ index: Int, nodeCount: Int) -> Bool {
        if reached.isEmpty { reached = Array(repeating: 0, count: (nodeCount + 63) / 64) }
        let word = index >> 6, bit = UInt64(1) << UInt64(index & 63)
        guard reached.indices.contains(word) else { return false }
        let before = reached[word] & bit != 0
        reached[word] |= bit
        return before
    }

    /// Notes `members` as those of the resource object at `index`.
    mutating func noteMembers(_ members: ResourceMembers, of index: Int) {
        upcoming = (index, members)
    }

    /// The members of the resource object at `index` of `tape`: those noted for it, or found now.
    func members(of index: Int, in tape: JSONTape) -> ResourceMembers {
        upcoming.index == index ? upcoming.members : ResourceMembers(tape: tape, object: index)
    }
}

/// The role of each type a decode meets, found once per type (casts and generic metadata are what make the
/// `Codable` boundary slow): a list, and a 64-slot table direct-mapped by the type's address in front of it, so
/// that most lookups compare once (`decode-typed` 55.8 M → 55.4 M).
struct DecodingRoleTable {
    private var roles: [(ObjectIdentifier, ResourceDecodingContext.Role)] = []
    private var slotTypes: [UInt] = []
    private var slots: [ResourceDecodingContext.Role] = []

    /// The role of `T`, examined on first use.
    mutating func role<T>(of type: T.Type) -> ResourceDecodingContext.Role {
        let identifier = ObjectIdentifier(T.self)
        let address = UInt(bitPattern: identifier)
        let slot = Int(truncatingIfNeeded: (address >> 4 ^ address >> 10) & 63)
        if !slotTypes.isEmpty, slotTypes[slot] == address { return slots[slot] }
        for (known, role) in roles where known == identifier {
            remember(role, at: slot, for: address)
            return role
        }
        let role = ResourceDecodingContext.examine(T.self)
        roles.append((identifier, role))
        remember(role, at: slot, for: address)
        return role
    }

    private mutating func remember(_ role: ResourceDecodingContext.Role, at slot: Int, for address: UInt) {
        if slotTypes.isEmpty {
            slotTypes = Array(repeating: 0, count: 64)
            slots = Array(repeating: .plain, count: 64)
        }
        slotTypes[slot] = address
        slots[slot] = role
    }
}
