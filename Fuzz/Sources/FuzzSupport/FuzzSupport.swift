import Foundation

/// libFuzzer's driver (in the toolchain's libFuzzer, linked by `-sanitize=fuzzer`). SwiftPM names an
/// executable's entry `<Module>_main`, which `-parse-as-library` never emits, so each harness defines
/// that symbol itself and hands libFuzzer its arguments and the function to fuzz.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

public enum Fuzz {
    /// Runs libFuzzer over `body` with the process's arguments (libFuzzer's own flags and corpus folders).
    public static func run(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                           _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, callback)
    }

    /// The input as `Data` (a copy: the harness may keep it past the callback).
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// A folder of this process's own, in memory where there is one, for readers that need files.
    public static let folder: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let url = URL(fileURLWithPath: base).appendingPathComponent("maptrip-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Fuzz.folder) }
        return url
    }()

    /// Writes `data` to `name` in `folder` (replacing what was there) and returns its URL.
    public static func file(_ name: String, _ data: Data) -> URL {
        let url = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        _ = FileManager.default.createFile(atPath: url.path, contents: data)
        return url
    }

    /// Splits an input into two files' bytes: a little-endian UInt16 length, that many bytes, the rest.
    /// (A mutated length still splits somewhere, so every input means something.)
    public static func split(_ data: Data) -> (Data, Data) {
        guard data.count >= 2 else { return (Data(), data) }
        let start = data.startIndex
        let n = min(Int(data[start]) | Int(data[start + 1]) << 8, data.count - 2)
        return (data.subdata(in: start + 2 ..< start + 2 + n), data.subdata(in: start + 2 + n ..< data.endIndex))
    }
}
