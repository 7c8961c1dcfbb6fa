import Foundation

/// Where the files a scene names (photos, vehicle images, sound, a tiles folder or MBTiles file) may
/// be. A batch renders scenes it did not write: each may name files only inside its own folder, or
/// inside folders allowed explicitly (`--allow-paths`). A single render trusts its scene (no policy).
public struct PathPolicy: Sendable, Equatable {
    /// Folders beyond each scene's own whose files scenes may name.
    public var allowed: [URL]

    public init(allowed: [URL] = []) {
        self.allowed = allowed.map { Self.resolved($0) }
    }

    /// Whether `name` (relative to `sceneFolder`, or absolute) is inside the scene's folder or an
    /// allowed one, once `..` and symbolic links are resolved.
    public func permits(_ name: String, sceneFolder: URL) -> Bool {
        let base = URL(fileURLWithPath: sceneFolder.path, isDirectory: true)  // relative names go inside it
        let target = Self.resolved(URL(fileURLWithPath: name, relativeTo: base)).path
        return ([Self.resolved(sceneFolder)] + allowed).contains { folder in
            let root = folder.path == "/" ? "/" : folder.path + "/"
            return target == folder.path || target.hasPrefix(root)
        }
    }

    static func resolved(_ url: URL) -> URL {
        url.standardizedFileURL.resolvingSymlinksInPath()
    }
}
