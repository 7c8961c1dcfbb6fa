import Foundation
import MapTripSupport

/// Finds the folder of embedded data (`Assets/`, with `basemap/`). Looked up once at the edge of
/// the program and passed down as a value.
public enum AssetLocator {
    public struct NotFound: Error, CustomStringConvertible, DiagnosticConvertible {
        public let searched: [String]
        public var description: String {
            "cannot find maptrip's Assets folder (looked in \(searched.joined(separator: ", "))); "
                + "pass --assets DIR or set MAPTRIP_ASSETS"
        }
    }

    /// In order: an explicit folder, `MAPTRIP_ASSETS`, then `Assets` (or `share/maptrip/Assets`)
    /// beside the executable or in any folder above it (a build tree or an install prefix), then
    /// the working directory.
    public static func locate(explicit: String?, environment: [String: String],
                              executable: String = CommandLine.arguments.first ?? "") throws -> URL {
        var candidates: [URL] = []
        if let explicit { candidates.append(URL(fileURLWithPath: explicit)) }
        if let env = environment["MAPTRIP_ASSETS"], !env.isEmpty { candidates.append(URL(fileURLWithPath: env)) }
        var dir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<8 {
            candidates.append(dir.appendingPathComponent("Assets"))
            candidates.append(dir.appendingPathComponent("share/maptrip/Assets"))
            let up = dir.deletingLastPathComponent()
            if up.path == dir.path { break }
            dir = up
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Assets"))
        if let explicit, !isAssets(URL(fileURLWithPath: explicit)) {
            throw NotFound(searched: [explicit])
        }
        if let found = candidates.first(where: isAssets) { return found.standardizedFileURL }
        throw NotFound(searched: candidates.map(\.path))
    }

    static func isAssets(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.appendingPathComponent("basemap/110m/ne_110m_admin_0_countries.shp").path)
    }
}
