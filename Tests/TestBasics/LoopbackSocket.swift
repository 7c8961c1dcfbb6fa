import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sockets on 127.0.0.1 for tests that play a server or a receiver.
public enum LoopbackSocket {
    /// A socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`) bound to 127.0.0.1 on a port the system
    /// picks, and that port; nil when it cannot be made (the socket closed again).
    public static func bound(_ type: Int32) -> (fd: Int32, port: Int)? {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        guard ok else {
            close(fd)
            return nil
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
