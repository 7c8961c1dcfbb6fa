import Foundation
import MapTripScene

/// What `maptrip plan` prints: the slots on the frame grid, and optionally the camera of every frame,
/// as JSON or as a text table.
public struct Plan: Sendable {
    public let scene: Scene
    public let timeline: Timeline

    public init(scene: Scene, timeline: Timeline) {
        self.scene = scene
        self.timeline = timeline
    }

    public init(scene: Scene) {
        self.init(scene: scene, timeline: Timeline(scene: scene))
    }

    /// Camera values in the per-frame list are rounded to this many decimals.
    public static let cameraDecimals = 6

    /// One line of compact JSON, keys in this order:
    /// `{"fps":30,"frames":450,"duration":15,"slots":[{"name":..,"lat":..,"lon":..,"zoom":..,
    /// "start":0,"arrive":0,"end":3}, ...]}`, times in seconds on the frame grid. With
    /// `includeFrames`, also `"cameras":[{"t":0,"lon":..,"lat":..,"zoom":..}, ...]`, one per frame
    /// (under "cameras" because "frames" already holds the frame count).
    public func json(includeFrames: Bool) -> String {
        let fps = timeline.fps
        func seconds(_ frame: Int) -> String { JSONText.number(Double(frame) / Double(fps)) }
        var out = "{\"fps\":\(fps),\"frames\":\(timeline.frameCount),"
        out += "\"projection\":\(JSONText.quoted(timeline.projection.description)),"
        out += "\"duration\":\(JSONText.number(timeline.duration)),\"slots\":["
        for slot in timeline.slots {
            if slot.index > 0 { out += "," }
            let p = slot.place
            out += "{\"name\":\(JSONText.quoted(p.name)),\"lat\":\(JSONText.number(p.position.lat)),"
            out += "\"lon\":\(JSONText.number(p.position.lon)),\"zoom\":\(JSONText.number(p.zoom)),"
            out += "\"start\":\(seconds(slot.startFrame)),\"arrive\":\(seconds(slot.arriveFrame)),"
            out += "\"end\":\(seconds(slot.endFrame))"
            if let voice = p.voice {
                out += ",\"voice\":{\"file\":\(JSONText.quoted(voice.file)),\"seconds\":\(Self.rounded(voice.duration)),"
                out += "\"rest\":\(JSONText.number(timeline.restSeconds[slot.index]))}"
            }
            if let leg = trackLeg(into: slot.index) {
                out += ",\"track\":{\"file\":\(JSONText.quoted(leg.file)),\"km\":\(Self.rounded(leg.km)),"
                out += "\"points\":\(leg.points),\"pace\":\(JSONText.quoted(leg.pace))}"
            }
            out += "}"
        }
        out += "]"
        if let playback = playbackJSON() { out += "," + playback }
        if let photos = photosJSON() { out += "," + photos }
        if let readouts = readoutsJSON(includeFrames: includeFrames) { out += "," + readouts }
        if includeFrames {
            out += ",\"cameras\":["
            out.reserveCapacity(out.utf8.count + timeline.frameCount * 64)
            for n in 0..<timeline.frameCount {
                if n > 0 { out += "," }
                let c = timeline.camera(at: n)
                out += "{\"t\":\(seconds(n)),\"lon\":\(Self.rounded(c.center.lon)),"
                out += "\"lat\":\(Self.rounded(c.center.lat)),\"zoom\":\(Self.rounded(c.zoom))"
                if c.bearing != 0 { out += ",\"bearing\":\(Self.rounded(c.bearing))" }
                out += "}"
            }
            out += "]"
        }
        return out + "}"
    }

    /// An aligned text table, one row per slot under a header line with the frame rate, frame count
    /// and duration; with `includeFrames`, followed by a table of every frame's camera.
    public func table(includeFrames: Bool) -> String {
        let fps = timeline.fps
        func seconds(_ frame: Int) -> String { String(format: "%.3f", Double(frame) / Double(fps)) }
        var lines: [String] = []
        if let title = scene.title { lines.append(TextTable.printable(title)) }
        lines.append("\(fps) fps, \(timeline.frameCount) frames, \(timeline.projection), "
                     + String(format: "%.3f s", timeline.duration) + " (\(Self.clock(timeline.duration)))")
        lines.append("")
        var rows = timeline.slots.isEmpty ? [] : [["#", "name", "lat", "lon", "zoom", "start", "arrive", "end", "frame", "frames"]]
        for slot in timeline.slots {
            rows.append([
                "\(slot.index + 1)", TextTable.printable(slot.place.name),
                String(format: "%.5f", slot.place.position.lat), String(format: "%.5f", slot.place.position.lon),
                String(format: "%.2f", slot.place.zoom),
                seconds(slot.startFrame), seconds(slot.arriveFrame), seconds(slot.endFrame),
                "\(slot.startFrame)", "\(slot.frameCount)",
            ])
        }
        lines += TextTable.render(rows, leftAligned: [1])
        lines += playbackLines()
        lines += photoLines()
        lines += readoutLines(includeFrames: includeFrames)
        for slot in timeline.slots {
            guard let voice = slot.place.voice else { continue }
            let rest = timeline.restFrames(of: slot.index)
            lines.append("voice at \(slot.index + 1) plays \(TextTable.printable(voice.file)): "
                         + String(format: "%.3f s from %.3f s, in a rest of %.3f s", voice.duration,
                                  Double(rest.lowerBound) / Double(fps), Double(rest.count) / Double(fps)))
        }
        for slot in timeline.slots {
            guard let leg = trackLeg(into: slot.index) else { continue }
            lines.append("leg into \(slot.index + 1) follows track \(TextTable.printable(leg.file)): "
                         + String(format: "%.3f km", leg.km) + ", \(leg.points) points, pace \(leg.pace)")
        }
        if includeFrames {
            lines.append("")
            var frames = [["frame", "t", "lon", "lat", "zoom", "slot"]]
            frames.reserveCapacity(timeline.frameCount + 1)
            for n in 0..<timeline.frameCount {
                let state = timeline.values(at: n)
                let c = state.camera
                frames.append(["\(n)", seconds(n), String(format: "%.6f", c.center.lon),
                               String(format: "%.6f", c.center.lat), String(format: "%.6f", c.zoom),
                               "\(state.current + 1)"])
            }
            lines += TextTable.render(frames, leftAligned: [])
        }
        return lines.joined(separator: "\n")
    }

    /// The recording the leg into slot i follows: its file, length, points and pace.
    func trackLeg(into i: Int) -> (file: String, km: Double, points: Int, pace: String)? {
        guard let track = scene.places[i].track, let line = timeline.routes[i] else { return nil }
        return (track.file, line.lengthKm, track.geometry.points.count, track.pace.rawValue)
    }

    /// A camera value rounded to `cameraDecimals` decimals, printed compactly.
    static func rounded(_ x: Double) -> String {
        let scale = pow(10, Double(cameraDecimals))
        let r = (x * scale).rounded() / scale
        return JSONText.number(r == 0 ? 0 : r)  // no "-0"
    }

    /// `h:mm:ss.s` or `m:ss.s`.
    public static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        let h = tenths / 36000, m = tenths / 600 % 60, s = Double(tenths % 600) / 10
        return h > 0 ? String(format: "%d:%02d:%04.1f", h, m, s) : String(format: "%d:%04.1f", m, s)
    }
}

/// Column layout for terminal tables, aware of wide (CJK, emoji) characters.
enum TextTable {
    /// Rows padded into columns two spaces apart; columns in `leftAligned` are left-aligned, the
    /// rest right-aligned. Trailing spaces are trimmed.
    static func render(_ rows: [[String]], leftAligned: Set<Int>) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], displayWidth(cell)) }
        }
        return rows.map { row in
            var line = ""
            for (i, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - displayWidth(cell))
                if i > 0 { line += "  " }
                line += leftAligned.contains(i) ? cell + padding : padding + cell
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    /// `s` with control characters escaped as in JSON, so a name cannot break a row.
    static func printable(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return s }
        let quoted = JSONText.quoted(s)
        return String(quoted.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
    }

    /// Terminal columns a string takes: two for East Asian wide and fullwidth characters and emoji,
    /// none for control characters, one otherwise (combining marks ride on their base character).
    static func displayWidth(_ s: String) -> Int {
        s.reduce(0) { width, character in
            guard let scalar = character.unicodeScalars.first else { return width }
            if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return width }
            return width + (isWide(scalar) || character.unicodeScalars.contains("\u{FE0F}") ? 2 : 1)
        }
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
