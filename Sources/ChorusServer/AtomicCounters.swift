import Synchronization

/// A fixed number of counters, each an `Atomic`, side by side: a metric's label
/// combinations by index, bumped from any thread without a lock.
final class AtomicCounters: @unchecked Sendable {
    // @unchecked: the cells are only ever touched through their atomic operations, and the
    // buffer lives as long as this object.
    private let cells: UnsafeMutablePointer<Atomic<Int>>
    let count: Int

    init(count: Int) {
        self.count = count
        cells = .allocate(capacity: count)
        for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    }

    deinit {
        cells.deinitialize(count: count)
        cells.deallocate()
    }

    func add(_ amount: Int = 1, at index: Int) {
        cells[index].add(amount, ordering: .relaxed)
    }

    func subtract(_ amount: Int = 1, at index: Int) {
        cells[index].subtract(amount, ordering: .relaxed)
    }

    subscript(index: Int) -> Int { cells[index].load(ordering: .relaxed) }
}
