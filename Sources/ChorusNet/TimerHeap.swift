/// Deadlines ordered soonest first: a binary min-heap, so the loop finds its next wake-up
/// in O(1) and adding or firing a timer costs O(log n) however many sessions wait.
struct TimerHeap {
    struct Entry {
        let deadline: UInt64
        let id: UInt64
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }
    var first: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && precedes(entries[left], entries[smallest]) { smallest = left }
            if right < entries.count && precedes(entries[right], entries[smallest]) { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    /// Ties go to the older timer so equal deadlines fire in the order they were set.
    private func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }
}
