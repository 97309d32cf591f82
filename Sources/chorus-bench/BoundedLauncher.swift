/// Starts `total` jobs with at most `parallel` running at once, so opening thousands of
/// sessions does not overflow the server's accept backlog; reports once, when all have
/// finished or the first one failed. Loop thread only.
final class BoundedLauncher {
    typealias Job = (_ index: Int, _ done: @escaping (BenchFailure?) -> Void) -> Void

    private let total: Int
    private let parallel: Int
    private let job: Job
    private var completion: ((BenchFailure?) -> Void)?
    private var started = 0
    private var finished = 0

    init(total: Int, parallel: Int, job: @escaping Job) {
        self.total = total
        self.parallel = max(1, parallel)
        self.job = job
    }

    func start(_ completion: @escaping (BenchFailure?) -> Void) {
        self.completion = completion
        if total == 0 {
            report(nil)
            return
        }
        while started < min(total, parallel) && self.completion != nil { launchNext() }
    }

    private func launchNext() {
        let index = started
        started += 1
        var reported = false
        job(index) { [self] failure in
            guard !reported else { return }
            reported = true
            finished += 1
            if let failure {
                report(failure)
            } else if finished == total {
                report(nil)
            } else if started < total && completion != nil {
                launchNext()
            }
        }
    }

    private func report(_ failure: BenchFailure?) {
        guard let completion else { return }
        self.completion = nil
        completion(failure)
    }
}
