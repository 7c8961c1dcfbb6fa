import Foundation
import MapTripScene

/// What `plan` says of a scene's readouts (`Scene.readouts`): the track they measure, and their values
/// at sampled frames (every second of video, or every frame with `--frames`), in SI units and as the
/// panel shows them, so that a frame's readouts can be checked against the recording.
extension Plan {
    /// The frames whose readouts the plan lists: every one, or each second of video and the last frame.
    func readoutFrames(every: Bool) -> [Int] {
        let last = (timeline.playback?.frameCount ?? timeline.frameCount) - 1
        guard last >= 0 else { return [] }
        let frames = Array(stride(from: 0, through: last, by: every ? 1 : timeline.fps))
        return frames.last == last ? frames : frames + [last]
    }

    /// `"readouts":{...}` for the plan's JSON (nil without readouts): per sampled frame its number, its
    /// second of video, its recorded seconds since the track's first fix, the values (`km`, `kmh`,
    /// `altitude` in metres, `heartRate`, `cadence`, `power`; absent ones left out) and `text`, what
    /// the panel shows for each item.
    func readoutsJSON(includeFrames: Bool) -> String? {
        guard let series = timeline.readouts else { return nil }
        var out = "\"readouts\":{\"track\":\(JSONText.quoted(series.name)),"
        out += "\"units\":\(JSONText.quoted(series.units.rawValue)),"
        out += "\"items\":[" + series.items.map { JSONText.quoted($0.rawValue) }.joined(separator: ",") + "],"
        out += "\"speedWindow\":\(JSONText.number(ReadoutItem.speedWindow)),\"samples\":["
        out += readoutFrames(every: includeFrames).compactMap { n -> String? in
            guard let v = timeline.values(at: n).readouts else { return nil }
            var s = "{\"frame\":\(n),\"t\":\(JSONText.number(Double(n) / Double(timeline.fps))),"
            // Inside a privacy zone, nothing that tells where the mover is.
            s += "\"elapsed\":\(Self.rounded(v.elapsed))"
            if v.hidden { s += ",\"hidden\":true" } else { s += ",\"km\":\(Self.rounded(v.km)),\"kmh\":\(Self.rounded(v.kmh))" }
            for (key, value) in [("altitude", v.hidden ? nil : v.altitude), ("heartRate", v.heartRate), ("cadence", v.cadence), ("power", v.power)] {
                if let value { s += ",\(JSONText.quoted(key)):\(Self.rounded(value))" }
            }
            s += ",\"text\":{" + series.items.compactMap { item in
                v.text(item, units: series.units).map { "\(JSONText.quoted(item.rawValue)):\(JSONText.quoted(Self.shown($0)))" }
            }.joined(separator: ",") + "}}"
            return s
        }.joined(separator: ",")
        return out + "]}"
    }

    /// A value and its unit as one string (`12.3 km/h`).
    static func shown(_ text: (value: String, unit: String)) -> String {
        text.unit.isEmpty ? text.value : text.value + " " + text.unit
    }

    /// The readouts' lines for the plan's table: what they measure, and what the panel shows at up to
    /// eleven frames spread over the playback (every frame with `--frames`).
    func readoutLines(includeFrames: Bool) -> [String] {
        guard let series = timeline.readouts else { return [] }
        let frameCount = timeline.playback?.frameCount ?? timeline.frameCount
        let lines = ["readouts of \(TextTable.printable(series.name)) (\(series.units.rawValue)): "
                     + series.items.map(\.rawValue).joined(separator: ", ")]
        let shown = series.items.filter { $0 != .profile }
        guard !shown.isEmpty else { return lines }
        let frames = includeFrames ? readoutFrames(every: true)
            : Array(Set((0...10).map { $0 * (frameCount - 1) / 10 })).sorted()
        var rows = [["frame", "t"] + shown.map(\.rawValue)]
        for n in frames {
            guard let v = timeline.values(at: n).readouts else { continue }
            rows.append(["\(n)", String(format: "%.3f", Double(n) / Double(timeline.fps))]
                        + shown.map { v.text($0, units: series.units).map(Self.shown) ?? "-" })
        }
        return lines + TextTable.render(rows, leftAligned: [])
    }
}
