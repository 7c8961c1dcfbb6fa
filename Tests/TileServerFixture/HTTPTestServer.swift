import Foundation
import MapTripTiles

/// The Python tile server fixture (tileserver.py beside this file), one process per test, on
/// 127.0.0.1 and a port the OS picks. Always stopped: use `HTTPTestServer.with`. Shared by the tile
/// tests and the command-line tests.
public final class HTTPTestServer {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("tileserver.py")

    public static var pythonAvailable: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/python3")
        }
    }

    public struct Log: Decodable, Sendable {
        public struct Entry: Decodable, Sendable {
            public var path: String
            public var query: String
            public var userAgent: String?
            public var ifNoneMatch: String?
            public var ifMatch: String?
            public var ifModifiedSince: String?
            public var acceptEncoding: String?
            public var range: String?
            public var status: Int?
        }
        public var requests: [Entry]
        public var maxConcurrent: Int

        public func requests(to path: String) -> [Entry] { requests.filter { $0.path == path } }
    }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    public private(set) var port = 0

    /// `files`: a folder served under /files/ (with range requests) and /norange/files/ (without).
    public init(files: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.script.path, "--max-seconds", "300"] + (files.map { ["--files", $0.path] } ?? [])
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // EOF: the server died before printing its port
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8)?.split(separator: "\n").first,
              let port = Int(text.trimmingCharacters(in: .whitespaces)) else {
            stop()
            throw StartError(description: "tile server did not print its port (got \(line.count) bytes)")
        }
        self.port = port
    }

    deinit { stop() }

    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Closing stdin makes the server exit; SIGTERM as well, in case it does not.
    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Every request the server saw, read with a client of its own (not the one under test).
    public func log() throws -> Log {
        let client = HTTPTileClient(options: HTTPTileOptions(retries: 0))
        let data = try client.fetch(url("/_log")).get()
        return try JSONDecoder().decode(Log.self, from: data)
    }
}

extension HTTPTestServer {
    /// Runs `body` with a fresh server, always stopped afterwards.
    public static func with<T>(_ body: (HTTPTestServer) throws -> T) throws -> T {
        let server = try HTTPTestServer()
        defer { server.stop() }
        return try body(server)
    }

    /// Runs `body` with a fresh directory, removed afterwards.
    public static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("maptrip-http-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    public static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
}

