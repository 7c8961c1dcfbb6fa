import Foundation
import MapTripScene

/// What `plan` says of a playback (`Scene.tracks`): its tracks, and its stretches: the recorded time
/// each shows (UTC, or seconds since the start in a ghost race), its frames and video seconds, and the
/// idle stretches cut out between them.
extension Plan {
    /// A recorded time on the playback's clock as the plan prints it.
    func recorded(_ t: Double) -> String {
        guard let clock = timeline.playback, clock.start == .recorded else { return JSONText.number((t * 1000).rounded() / 1000) }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        // In the clock's zone (`+02:00`), as the clock shows it.
        f.timeZone = TimeZone(secondsFromGMT: Int(clock.utcOffset(at: t))) ?? f.timeZone
        return f.string(from: Date(timeIntervalSince1970: t))
    }

    /// `"playback":{...}` for the plan's JSON (nil without tracks).
    func playbackJSON() -> String? {
        guard let clock = timeline.playback else { return nil }
        func seconds(_ frame: Int) -> String { JSONText.number(Double(frame) / Double(timeline.fps)) }
        var out = "\"playback\":{\"speed\":\(JSONText.number(clock.speed)),\"start\":\(JSONText.quoted(clock.start.rawValue)),"
        out += "\"frames\":\(clock.frameCount),\"tracks\":["
        out += zip(scene.tracks, clock.lines).map { track, line in
            "{\"name\":\(JSONText.quoted(track.name)),\"file\":\(JSONText.quoted(track.file)),"
                + "\"points\":\(track.geometry.points.count),\"km\":\(Self.rounded(line.lengthKm)),"
                + "\"seconds\":\(JSONText.number(track.duration))}"
        }.joined(separator: ",")
        /// `"from":..,"to":..` of a range of recorded time.
        func span(_ r: ClosedRange<Double>) -> String {
            "\"from\":\(JSONText.quoted(recorded(r.lowerBound))),\"to\":\(JSONText.quoted(recorded(r.upperBound)))"
        }
        out += "],\"stretches\":["
        out += clock.stretches.map { s in
            "{\(span(s.recorded)),\"start\":\(seconds(s.frames.lowerBound)),\"end\":\(seconds(s.frames.upperBound)),"
                + "\"startFrame\":\(s.frames.lowerBound),\"endFrame\":\(s.frames.upperBound)}"
        }.joined(separator: ",")
        out += "],\"cuts\":["
        out += clock.cuts.map { "{\(span($0)),\"seconds\":\(JSONText.number($0.upperBound - $0.lowerBound))}" }.joined(separator: ",")
        return out + "]}"
    }

    /// The playback's lines for the plan's table (none without tracks).
    func playbackLines() -> [String] {
        guard let clock = timeline.playback else { return [] }
        func seconds(_ frame: Int) -> String { String(format: "%.3f", Double(frame) / Double(timeline.fps)) }
        var lines = ["playback at \(JSONText.number(clock.speed))x, start \(clock.start.rawValue), \(clock.frameCount) frames"]
        for (track, line) in zip(scene.tracks, clock.lines) {
            lines.append("track \(TextTable.printable(track.name)) (\(TextTable.printable(track.file))): "
                         + String(format: "%.3f km, %d points, %@", line.lengthKm, track.geometry.points.count,
                                  Self.clock(track.duration)))
        }
        var rows = [["stretch", "recorded from", "to", "start", "end", "frames"]]
        for (k, s) in clock.stretches.enumerated() {
            rows.append(["\(k + 1)", recorded(s.recorded.lowerBound), recorded(s.recorded.upperBound),
                         seconds(s.frames.lowerBound), seconds(s.frames.upperBound), "\(s.frames.count)"])
        }
        lines += TextTable.render(rows, leftAligned: [1, 2])
        for c in clock.cuts {
            lines.append("cut: \(recorded(c.lowerBound)) to \(recorded(c.upperBound)) ("
                         + Self.clock(c.upperBound - c.lowerBound) + " idle)")
        }
        return lines
    }

    /// `"photos":[...]` for the plan's JSON: each photo along the track (`Scene.photos`), when it was
    /// taken (the mover's recorded time), where, and the video seconds its card shows (nil without photos;
    /// a photo the video ends before has no `start`).
    func photosJSON() -> String? {
        guard let photos = scene.photos else { return nil }
        let windows = timeline.trackPhotoWindows
        func seconds(_ frame: Int) -> String { JSONText.number(Double(frame) / Double(timeline.fps)) }
        let items = photos.photos.enumerated().map { k, photo in
            var item = "{\"file\":\(JSONText.quoted(photo.file)),\"taken\":\(JSONText.quoted(TrackPhotos.utcText(photo.time))),"
                + "\"lon\":\(Self.rounded(photo.position.lon)),\"lat\":\(Self.rounded(photo.position.lat))"
            if let w = windows[k] {
                item += ",\"start\":\(seconds(w.lowerBound)),\"end\":\(seconds(w.upperBound)),"
                    + "\"startFrame\":\(w.lowerBound),\"endFrame\":\(w.upperBound)"
            }
            return item + "}"
        }
        return "\"photos\":[" + items.joined(separator: ",") + "]"
    }

    /// The photos along the track for the plan's table (none without them).
    func photoLines() -> [String] {
        guard let photos = scene.photos else { return [] }
        let windows = timeline.trackPhotoWindows
        func seconds(_ frame: Int) -> String { String(format: "%.3f", Double(frame) / Double(timeline.fps)) }
        var rows = [["photo", "taken", "lat", "lon", "start", "end"]]
        for (k, photo) in photos.photos.enumerated() {
            rows.append([TextTable.printable(photo.file), TrackPhotos.utcText(photo.time),
                         String(format: "%.5f", photo.position.lat), String(format: "%.5f", photo.position.lon),
                         windows[k].map { seconds($0.lowerBound) } ?? "-", windows[k].map { seconds($0.upperBound) } ?? "-"])
        }
        return TextTable.render(rows, leftAligned: [0, 1])
    }
}
