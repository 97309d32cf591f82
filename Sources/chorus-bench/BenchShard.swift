import ChorusNet

/// One loop's part of a workload: made on the calling thread, then touched only on its loop.
protocol BenchShard: AnyObject {
    init(index: Int, connector: ClientConnector)
}
