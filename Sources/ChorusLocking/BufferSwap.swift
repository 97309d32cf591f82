/// Lists that are filled and then taken whole, over and over: a loop's inbox and its
/// end-of-turn lists, the database's job queue.
///
/// The obvious `let taken = list; list.removeAll(keepingCapacity: true)` allocates every
/// time: `taken` still shares the buffer, so keeping the capacity means a fresh buffer as
/// large as the biggest list so far (and, past a kilobyte, a pass over malloc's free
/// lists). Swapping in a spare buffer instead, and giving the taken one back when done,
/// allocates nothing once both buffers have grown.
extension Array {
    /// Everything in the list; the list is left empty, holding `spare`'s buffer.
    public mutating func takeAll(reusing spare: inout [Element]) -> [Element] {
        var taken = spare
        spare = []
        swap(&self, &taken)
        return taken
    }

    /// Empties a list returned by `takeAll` and keeps its buffer as the next spare.
    public mutating func recycle(into spare: inout [Element]) {
        removeAll(keepingCapacity: true)
        swap(&self, &spare)
    }
}
