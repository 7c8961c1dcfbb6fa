import Foundation

/// Small file helpers for the output tests.
enum Trip {
    /// File names in a folder, sorted.
    static func contents(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}
