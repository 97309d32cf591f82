/// One metric family as Prometheus's text format shows it: a name, its help and type, and
/// its series. Values only; `MetricsExposition` writes them out.
struct MetricFamily: Sendable {
    enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// A counter's or gauge's series.
    struct Sample: Sendable {
        let labels: [(String, String)]
        let value: Double
    }

    /// A histogram's series: counts per bucket as observed (not yet cumulative), the
    /// buckets' upper bounds in the same order, and the sum of what was observed.
    struct Histogram: Sendable {
        let labels: [(String, String)]
        let upperBounds: [Double]
        let bucketCounts: [Int]
        /// Observations above the last bound.
        let overflow: Int
        let sum: Double
    }

    let name: String
    let help: String
    let kind: Kind
    var samples: [Sample] = []
    var histograms: [Histogram] = []

    init(_ name: String, _ kind: Kind, help: String, samples: [Sample] = [], histograms: [Histogram] = []) {
        self.name = name
        self.kind = kind
        self.help = help
        self.samples = samples
        self.histograms = histograms
    }
}

/// The text exposition format, version 0.0.4 (what `/metrics` answers): `# HELP` and
/// `# TYPE` per family, one line per series, histograms as cumulative `_bucket{le=…}`
/// lines ending with `+Inf`, then `_sum` and `_count`. Pure.
enum MetricsExposition {
    /// `common` labels (the node's, in cluster mode) come first on every series.
    static func render(_ families: [MetricFamily], common: [(String, String)] = []) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(escapedHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                out += family.name + labelSet(common + sample.labels) + " " + number(sample.value) + "\n"
            }
            for histogram in family.histograms {
                let labels = common + histogram.labels
                var cumulative = 0
                for (bound, count) in zip(histogram.upperBounds, histogram.bucketCounts) {
                    cumulative += count
                    out += family.name + "_bucket" + labelSet(labels + [("le", number(bound))]) + " \(cumulative)\n"
                }
                cumulative += histogram.overflow
                out += family.name + "_bucket" + labelSet(labels + [("le", "+Inf")]) + " \(cumulative)\n"
                out += family.name + "_sum" + labelSet(labels) + " " + number(histogram.sum) + "\n"
                out += family.name + "_count" + labelSet(labels) + " \(cumulative)\n"
            }
        }
        return out
    }

    /// `{a="1",b="2"}`, or nothing for no labels.
    static func labelSet(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escapedLabelValue($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapedLabelValue(_ value: String) -> String {
        escaped(value, quote: true)
    }

    /// Help text: backslash and line feed escaped.
    static func escapedHelp(_ help: String) -> String {
        escaped(help, quote: false)
    }

    /// By scalar, not by Character: "\r\n" is one Character, and its line feed must be escaped.
    private static func escaped(_ text: String, quote: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\"" where quote: out.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whole numbers without a fraction (`3`, `5`), others as Swift writes a Double
    /// (`0.0005`, `2.5`), which Prometheus's float parser reads.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
