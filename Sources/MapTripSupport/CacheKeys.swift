import Foundation

/// What names and checks the disk caches' entries (the geometry cache, the drawn tile cache): the
/// identity of the files an entry was made from, and a fast hash of bytes.
public enum CacheKeys {
    /// The identity of the files at `paths` as the file system sees them now (size, modification
    /// time, inode; a missing file counts as missing).
    public static func identity(of paths: [String]) -> String {
        // stat(2) itself: FileManager's attributes look up the owner's and group's names too (reading
        // /etc/passwd and /etc/group for every file, as a render starts).
        paths.map { path -> String in
            var st = stat()
            guard stat(path, &st) == 0 else { return "-" }
            // The modification time as FileManager gives it: seconds since 1970, as a Double.
            let time = Platform.modifiedSeconds(st)
            return "\(Int64(st.st_size)):\(time.bitPattern):\(UInt64(st.st_ino))"
        }.joined(separator: ",")
    }

    /// FNV-1a, over 8-byte little-endian words and then the bytes left (a checksum, and a name).
    public static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let words = bytes.count / 8
        for i in 0..<words {
            h ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
            h &*= 0x0000_0100_0000_01b3
        }
        for b in bytes[(words * 8)...] {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    public static func fnv1a(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { fnv1a($0) } }
}
