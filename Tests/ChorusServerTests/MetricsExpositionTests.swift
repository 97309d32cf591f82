@testable import ChorusServer
import Testing

/// The text exposition format as `/metrics` writes it (`MetricsExposition`), without a server.
@Suite struct MetricsExpositionTests {
    @Test func everyFamilyHasHelpAndTypeBeforeItsSeries() {
        let text = MetricsExposition.render([
            MetricFamily("chorus_things_total", .counter, help: "Things.", samples: [.init(labels: [("kind", "a")], value: 3)]),
            MetricFamily("chorus_open", .gauge, help: "Open now.", samples: [.init(labels: [], value: 2)]),
        ])
        #expect(text == """
            # HELP chorus_things_total Things.
            # TYPE chorus_things_total counter
            chorus_things_total{kind="a"} 3
            # HELP chorus_open Open now.
            # TYPE chorus_open gauge
            chorus_open 2

            """)
    }

    @Test func labelValuesEscapeBackslashQuoteAndLineFeed() {
        #expect(MetricsExposition.escapedLabelValue(#"a\b"c"#) == #"a\\b\"c"#)
        #expect(MetricsExposition.escapedLabelValue("one\ntwo") == #"one\ntwo"#)
        // "\r\n" is one Character in Swift; its line feed is escaped all the same.
        #expect(MetricsExposition.escapedLabelValue("one\r\ntwo") == "one\r\\ntwo")
        #expect(MetricsExposition.labelSet([("verb", "TASK ADD"), ("code", "200")]) == #"{verb="TASK ADD",code="200"}"#)
        #expect(MetricsExposition.labelSet([]) == "")
    }

    @Test func helpEscapesBackslashAndLineFeedButNotQuotes() {
        #expect(MetricsExposition.escapedHelp("say \"hi\"\nor \\ not") == #"say "hi"\nor \\ not"#)
    }

    @Test func histogramBucketsAreCumulativeAndEndWithInf() {
        let family = MetricFamily("chorus_wait_seconds", .histogram, help: "Waits.", histograms: [
            .init(labels: [], upperBounds: [0.0005, 0.01, 1], bucketCounts: [2, 0, 3], overflow: 1, sum: 7.25),
        ])
        let lines = MetricsExposition.render([family]).split(separator: "\n").map(String.init)
        #expect(lines == [
            "# HELP chorus_wait_seconds Waits.",
            "# TYPE chorus_wait_seconds histogram",
            #"chorus_wait_seconds_bucket{le="0.0005"} 2"#,
            #"chorus_wait_seconds_bucket{le="0.01"} 2"#,
            #"chorus_wait_seconds_bucket{le="1"} 5"#,
            #"chorus_wait_seconds_bucket{le="+Inf"} 6"#,
            "chorus_wait_seconds_sum 7.25",
            "chorus_wait_seconds_count 6",
        ])
    }

    @Test func theNodeLabelComesFirstOnEverySeries() {
        let text = MetricsExposition.render([
            MetricFamily("chorus_things_total", .counter, help: "Things.", samples: [.init(labels: [("kind", "a")], value: 1)]),
            MetricFamily("chorus_up", .gauge, help: "Up.", samples: [.init(labels: [], value: 1)]),
            MetricFamily("chorus_wait_seconds", .histogram, help: "Waits.", histograms: [
                .init(labels: [], upperBounds: [1], bucketCounts: [1], overflow: 0, sum: 0.5),
            ]),
        ], common: [("node", "alpha\"1")])
        let series = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(series.count == 6)
        for line in series {
            #expect(line.contains(#"{node="alpha\"1""#), "\(line)")
        }
        #expect(text.contains(#"chorus_wait_seconds_bucket{node="alpha\"1",le="+Inf"} 1"#))
    }

    @Test func numbersAreWholeWhereTheyCanBe() {
        #expect(MetricsExposition.number(5) == "5")
        #expect(MetricsExposition.number(0.0005) == "0.0005")
        #expect(MetricsExposition.number(2.5) == "2.5")
        #expect(MetricsExposition.number(.infinity) == "+Inf")
    }

    @Test func theStoreHistogramsBucketsRunFromHalfAMillisecondToFiveSeconds() {
        let histogram = SecondsHistogram()
        histogram.observe(0.0005)
        histogram.observe(0.003)
        histogram.observe(9)
        let series = histogram.series()
        #expect(series.upperBounds.first == 0.0005 && series.upperBounds.last == 5)
        #expect(series.bucketCounts[0] == 1, "a value on a bound counts in that bucket (le)")
        #expect(series.bucketCounts[series.upperBounds.firstIndex(of: 0.005)!] == 1)
        #expect(series.overflow == 1)
        #expect(abs(series.sum - 9.0035) < 1e-6)
    }

    @Test func commandVerbsAreTheTablesRowsAndOther() {
        #expect(CommandVerb("TASK ADD").name == "TASK ADD")
        #expect(CommandVerb("CALENDAR me").name == "CALENDAR me")
        #expect(CommandVerb("NO SUCH VERB") == .other)
        #expect(CommandVerb.names.count == Set(CommandVerb.names).count)
        #expect(ReplyCodeLabel.name(at: ReplyCodeLabel.index(of: 404)) == "404")
        #expect(ReplyCodeLabel.name(at: ReplyCodeLabel.index(of: 418)) == "other")
    }
}
