import CFFmpeg

/// How alike two pictures are, measured by libavfilter's `ssim` filter (structural similarity, Wang et
/// al. 2004, on 8x8 windows of each plane, combined as FFmpeg's "All": 1 is identical).
public final class Similarity {
    public let width: Int
    public let height: Int
    private let graph: FilterGraph
    private let a: Frame, b: Frame, result: Frame
    private var pts: Int64 = 0

    /// The pictures compared: BGRA (compared in 4:4:4 YUV, so that no chroma subsampling hides a
    /// difference), or I420 as the encoders take it.
    public let pixelFormat: PixelFormat

    /// For pictures of this size in `pixelFormat` (.bgra or .yuv420p).
    public init(width: Int, height: Int, pixelFormat: PixelFormat = .bgra) throws {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        let input = FilterGraph.Input(width: width, height: height, pixelFormat: pixelFormat, frameRate: 30)
        graph = try FilterGraph(pixelFormat == .bgra ? "[in0]format=yuv444p[a];[in1]format=yuv444p[b];[a][b]ssim[out]"
                                    : "[in0][in1]ssim[out]", inputs: [input, input])
        a = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        b = try Frame(width: width, height: height, pixelFormat: pixelFormat)
        result = try Frame()
    }

    /// The SSIM of two premultiplied BGRA pictures (rows `stride` bytes apart).
    public func ssim(_ x: UnsafePointer<UInt8>, strideX: Int, _ y: UnsafePointer<UInt8>, strideY: Int) throws -> Double {
        try ssim([[(x, strideX)], [(y, strideY)]], rowBytes: [width * 4], rows: [height])
    }

    /// The SSIM of two I420 pictures: each its Y, U and V planes (rows `stride` bytes apart).
    public func ssim(planes x: [(data: UnsafePointer<UInt8>, stride: Int)],
                     _ y: [(data: UnsafePointer<UInt8>, stride: Int)]) throws -> Double {
        try ssim([x, y], rowBytes: [width, (width + 1) / 2, (width + 1) / 2],
                 rows: [height, (height + 1) / 2, (height + 1) / 2])
    }

    private func ssim(_ pictures: [[(data: UnsafePointer<UInt8>, stride: Int)]], rowBytes: [Int], rows: [Int]) throws -> Double {
        guard pictures.allSatisfy({ $0.count == rowBytes.count }) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "ssim",
                              message: "\(rowBytes.count) planes expected for \(pixelFormat.name)")
        }
        for (frame, planes) in zip([a, b], pictures) {
            try frame.makeWritable()
            for (i, (src, stride)) in planes.enumerated() {
                guard let dst = frame.data(plane: i) else {
                    throw FFmpegError(code: FFmpegError.invalidArgument, operation: "ssim", message: "no picture plane \(i)")
                }
                let line = frame.linesize(plane: i)
                for row in 0..<rows[i] { (dst + row * line).update(from: src + row * stride, count: rowBytes[i]) }
            }
            frame.pointer.pointee.pts = pts
        }
        pts += 1
        try graph.push(a, input: 0)
        try graph.push(b, input: 1)
        guard try graph.pull(into: result) else {
            throw FFmpegError(code: FFmpegError.again, operation: "ssim", message: "no result from the ssim filter")
        }
        guard let entry = av_dict_get(result.pointer.pointee.metadata, "lavfi.ssim.All", nil, 0),
              let value = Double(String(cString: entry.pointee.value)) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "ssim", message: "no lavfi.ssim.All in the result")
        }
        return value
    }
}
