import ChorusNet

/// One loop's part of a workload: made on the calling thread, then touched only on its loop.
protocol BenchShard: AnyObject {
    init(index: Int, nodes: NodeConnectors)
}

/// A workload of BENCHMARKS.md: its shard type, and the run that drives the shards
/// through its phases and reports.
protocol Workload {
    associatedtype Shard: BenchShard
    static func run(_ context: BenchContext, on generator: Generator<Shard>) throws -> BenchReport
}
