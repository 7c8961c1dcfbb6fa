import Foundation

/// Synthetic media for the encoder and container tests: pictures whose content is known pixel by
/// pixel, and what a written MP4 holds at its top level.
public enum TestMedia {
    /// Premultiplied BGRA rows (`width * 4` bytes apart) of a pure blue background with a pure red
    /// `side` x `side` square whose top-left corner is at `origin`.
    public static func square(width: Int, height: Int, origin: (x: Int, y: Int), side: Int = 160) -> [UInt8] {
        let stride = width * 4
        var p = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * stride + x * 4
                let inSquare = x >= origin.x && x < origin.x + side && y >= origin.y && y < origin.y + side
                // B, G, R, A
                p[i] = inSquare ? 0 : 255
                p[i + 1] = 0
                p[i + 2] = inSquare ? 255 : 0
                p[i + 3] = 255
            }
        }
        return p
    }

    /// The MP4 (ISO BMFF) box types at the top level of `data`, in file order.
    public static func topLevelBoxes(_ data: Data) -> [String] {
        let bytes = [UInt8](data)
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= bytes.count {
                size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
            } else if size == 0 {
                size = bytes.count - offset
            }
            boxes.append(type)
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }
}
