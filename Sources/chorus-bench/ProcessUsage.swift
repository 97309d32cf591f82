import Foundation
import Glibc

/// CPU time and memory of a process, read from /proc (the server) or getrusage (this
/// generator), so each run can say what the work cost on both sides of the socket.
struct ProcessUsage: Sendable {
    struct ThreadTime: Sendable {
        let name: String
        let seconds: Double
    }

    /// CPU seconds (user + system) of the server's processes (every node's); nil when one
    /// could not be read.
    let serverSeconds: Double?
    /// Each server process's own, in `--server-pid` order.
    let serverProcesses: [(pid: Int32, seconds: Double?)]
    /// Per thread id, so a busy loop thread stands out from the database or hash threads.
    let serverThreads: [Int: ThreadTime]
    let generatorSeconds: Double
    /// CPU seconds the whole machine has been busy (all processes, all cores), so a run can
    /// tell how much of the cores something else took (other people's builds).
    let machineBusySeconds: Double?
    let wallNanoseconds: UInt64

    /// Reads everything now. `serverPIDs` are the server's processes, when known: with
    /// several (nodes), thread names start with the process's pid.
    static func snapshot(serverPIDs: [Int32]) -> ProcessUsage {
        var threads: [Int: ThreadTime] = [:]
        let processes = serverPIDs.map { pid in (pid: pid, seconds: statCPUSeconds(path: "/proc/\(pid)/stat")?.seconds) }
        let total: Double? = processes.isEmpty || processes.contains { $0.seconds == nil }
            ? nil : processes.reduce(0) { $0 + $1.seconds! }
        for pid in serverPIDs {
            let prefix = serverPIDs.count > 1 ? "\(pid)/" : ""
            let taskFolder = "/proc/\(pid)/task"
            var times: [Int: (name: String, seconds: Double)] = [:]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: taskFolder)) ?? [] {
                guard let tid = Int(entry), let time = statCPUSeconds(path: "\(taskFolder)/\(entry)/stat") else { continue }
                times[tid] = time
            }
            // Threads that share a name (chorusd's all say "chorusd") are told apart by
            // creation order: "#0" is the main thread, then as the server started them.
            let names = times.values.map(\.name)
            for (rank, tid) in times.keys.sorted().enumerated() {
                let time = times[tid]!
                let unique = names.filter { $0 == time.name }.count == 1
                threads[tid] = ThreadTime(name: prefix + (unique ? time.name : "\(time.name)#\(rank)"), seconds: time.seconds)
            }
        }
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let generator = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(serverSeconds: total, serverProcesses: processes, serverThreads: threads, generatorSeconds: generator,
                            machineBusySeconds: machineBusySeconds(), wallNanoseconds: BenchClock.now())
    }

    /// `utime + stime` and the thread or process name from a /proc stat file. The name
    /// sits in parentheses and may hold spaces, so fields are counted after the last ')'.
    private static func statCPUSeconds(path: String) -> (name: String, seconds: Double)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let name = String(text[text.index(after: open)..<close])
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime field 14, stime field 15 (1-based).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (name, (user + system) / ticks)
    }

    /// The first line of /proc/stat: every core's time in ticks; busy is all but idle and iowait.
    private static func machineBusySeconds() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        // user nice system idle iowait irq softirq steal
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS of every process, summed; nil when there are none or one cannot be read.
    static func residentBytes(pids: [Int32]) -> Int? {
        let sizes = pids.map(residentBytes(pid:))
        guard !sizes.isEmpty, !sizes.contains(nil) else { return nil }
        return sizes.reduce(0) { $0 + $1! }
    }

    /// VmRSS of a process in bytes.
    static func residentBytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kilobytes = Int(parts[1]) { return kilobytes * 1024 }
        }
        return nil
    }
}
