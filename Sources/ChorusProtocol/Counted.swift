/// A count with its noun, singular for one: "1 room", "2 rooms" (or the given plural).
/// Every reply line that counts says it this way, so "1 rooms" cannot slip back in.
public func counted(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}
