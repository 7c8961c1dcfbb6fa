import Foundation
import MapTripOutput
import MapTripRecord

/// `manifest.json` and `index.html` in a batch's folder, each written to a temporary file and renamed.
public enum BatchManifest {
    /// One scene in `manifest.json`.
    public struct Entry: Codable, Sendable, Equatable {
        /// The scene's path as the batch names it.
        public var scene: String
        /// The clip and poster, relative to the folder.
        public var output: String
        public var poster: String?
        public var title: String?
        public var duration: Double?
        public var frames: Int?
        /// The clip's size in bytes.
        public var size: Int?
        /// `rendered`, `skipped` (up to date) or `failed`.
        public var status: String
        public var error: String?
    }

    public struct File: Codable, Sendable, Equatable {
        public var maptrip: String
        public var scenes: [Entry]
    }

    public static func entries(_ report: BatchReport) -> [Entry] {
        report.events.map { e in
            let ok = e.event != .failed
            return Entry(scene: e.scene, output: e.output, poster: ok ? e.poster : nil, title: e.title,
                         duration: ok ? e.duration : nil, frames: ok ? e.frames : nil, size: ok ? e.size : nil,
                         status: e.event == .done ? "rendered" : e.event == .skipped ? "skipped" : "failed",
                         error: e.error)
        }
    }

    static func write(_ report: BatchReport, folder: URL, items: [BatchItem]) throws {
        let entries = entries(report)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = try encoder.encode(File(maptrip: maptripVersion, scenes: entries))
        try atomicWrite(json + Data("\n".utf8), to: folder.appendingPathComponent("manifest.json"))
        try atomicWrite(Data(gallery(entries).utf8), to: folder.appendingPathComponent("index.html"))
    }

    /// Writes `.NAME.maptrip-<pid>-<random>.tmp` beside the target, then renames it onto the target.
    static func atomicWrite(_ data: Data, to url: URL) throws {
        do {
            try TemporaryFiles.write(data, to: url)
        } catch {
            throw BatchError("\(error)")
        }
    }

    /// `3.5` -> `0:03.5`.
    static func clock(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return String(format: "%d:%02d.%d", tenths / 600, tenths / 10 % 60, tenths % 10)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// A relative path as a URL reference (each component percent-encoded), HTML-escaped.
    static func href(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        return escape(path.split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }
            .joined(separator: "/"))
    }

    /// The gallery: for each clip its poster, title, duration and a player; failures with their reason.
    /// Relative links only, so it works opened from the file system.
    public static func gallery(_ entries: [Entry]) -> String {
        let cards = entries.map { e -> String in
            let title = escape(e.title ?? e.scene)
            if e.status == "failed" {
                return """
                    <article class="clip failed"><h2>\(title)</h2><p class="scene">\(escape(e.scene))</p>
                    <p class="error">\(escape(e.error ?? "failed"))</p></article>
                    """
            }
            let poster = e.poster.map(href) ?? ""
            let length = e.duration.map(clock) ?? "?"
            return """
                <article class="clip">
                <img class="poster" src="\(poster)" alt="\(title)" loading="eager">
                <h2>\(title) <span class="duration">\(length)</span></h2>
                <p class="scene">\(escape(e.scene))</p>
                <video controls preload="metadata" poster="\(poster)" src="\(href(e.output))"></video>
                </article>
                """
        }.joined(separator: "\n")
        let done = entries.filter { $0.status != "failed" }.count
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>maptrip clips</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 1.5rem; background: #f4f4f4; color: #222; }
            main { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 1rem; }
            .clip { background: #fff; border-radius: 8px; padding: .75rem; box-shadow: 0 1px 3px #0002; }
            .clip img.poster { width: 100%; display: block; border-radius: 4px; }
            .clip video { width: 100%; margin-top: .5rem; }
            .clip h2 { font-size: 1rem; margin: .5rem 0 0; display: flex; justify-content: space-between; }
            .duration { font-variant-numeric: tabular-nums; color: #666; }
            .scene { font-size: .8rem; color: #888; margin: .2rem 0; }
            .failed .error { color: #b00; }
            </style></head>
            <body>
            <h1>maptrip clips</h1>
            <p>\(done) of \(entries.count) scenes rendered</p>
            <main>
            \(cards)
            </main>
            </body></html>

            """
    }
}
