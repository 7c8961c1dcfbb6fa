import MapTripScene
import Testing

/// Times as people write them, for `preview --at`, `render --poster-at` and the scene's hints.
@Suite("TimeText")
struct TimeTextTests {
    @Test(arguments: [
        ("12.5", 12.5), ("0", 0), (" 7 ", 7), ("3s", 3), ("1.5 sec", 1.5), ("2 Seconds", 2), ("500ms", 0.5),
        ("2 min", 120), ("1minute", 60), ("0:05", 5), ("0:05.5", 5.5), ("1:02.5", 62.5), ("12:00", 720),
        ("1:02:03", 3723), ("0:00:00.25", 0.25), ("0:3.5", 3.5), ("0:5", 5), ("1:0:05", 3605),
    ])
    func reads(_ text: String, seconds: Double) {
        #expect(TimeText.seconds(in: text) == seconds, "\(text)")
    }

    @Test(arguments: ["", "s", "abc", "3 parsecs", "1..5", "1.2.3", "-1", "1e3", "0:75", "0:005", "0:.5", "0:60",
                      "1:2:3:4", ":30", "1:", "1.5:30", "nan", "inf", "٣"])
    func refuses(_ text: String) {
        #expect(TimeText.seconds(in: text) == nil, "\(text)")
    }
}
