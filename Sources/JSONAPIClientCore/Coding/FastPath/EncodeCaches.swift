/// What one encode keeps so that it does no work twice: the role of each type, emptied captures for the next model,
/// the keyed containers it hands out again, and the identifiers of the related resources already reached.
///
/// One value, held by ``ResourceEncodingContext`` and reached only through it; the invariants are in `README.md`
/// beside this file.
struct EncodeCaches {
    /// The role of each type encoded so far (few: a model's property types).
    var roles: [(ObjectIdentifier, EncodingRole)] = []
    /// Captures done with, emptied, for the next model: most of a document's models are linked ones, captured only
    /// to learn their identity, and allocating a capture and its arrays for each was a tenth of an encode.
    var captures: [ResourceCapture] = []
    /// Models' keyed containers handed out again (`encode-document` 87.3 M → 82.4 M).
    var containers: EncodingContainerPool
    /// The related resources the encode has reached (written to `included`, or being written): a related model is
    /// encoded once however many paths lead to it, which keeps an encode linear on any graph.
    var reached = IdentifierSet()

    /// Empty caches; `poolsContainers: false` hands out a new container every time (the plain path).
    init(poolsContainers: Bool) {
        containers = EncodingContainerPool(isEnabled: poolsContainers)
    }
}
