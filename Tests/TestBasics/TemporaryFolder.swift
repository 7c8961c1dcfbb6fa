import Foundation

/// Fresh folders under the system's temporary directory, for tests: one per use, removed after it.
public enum TemporaryFolder {
    /// A new empty folder, `maptrip-<label>-<UUID>`; remove it with `FileManager`.
    public static func make(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("maptrip-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A new folder for `body`, removed afterwards whatever happens.
    public static func with<T>(_ label: String, _ body: (URL) throws -> T) throws -> T {
        let dir = try make(label)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }
}
