/// A first-in first-out queue over an array: taking from the front moves an index, and
/// the taken slots are reclaimed in bulk, so both ends cost O(1) amortized. For the
/// per-turn queues of replies that wait their turn.
public struct FIFOQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head == items.count }
    public var count: Int { items.count - head }
    public var first: Element? { isEmpty ? nil : items[head] }

    public mutating func append(_ item: Element) {
        items.append(item)
    }

    public mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    public mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
