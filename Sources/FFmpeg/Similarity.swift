import CFFmpeg

/// How alike two pictures are, measured by libavfilter's `ssim` filter (structural similarity, Wang et
/// al. 2004, on 8x8 windows of each plane, combined as FFmpeg's "All": 1 is identical).
public final class Similarity {
    public let width: Int
    public let height: Int
    private let graph: FilterGraph
    private let a: Frame, b: Frame, result: Frame
    private var pts: Int64 = 0

    /// For BGRA pictures of this size, compared in 4:4:4 YUV (no chroma subsampling hides a difference).
    public init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        let input = FilterGraph.Input(width: width, height: height, pixelFormat: .bgra, frameRate: 30)
        graph = try FilterGraph("[in0]format=yuv444p[a];[in1]format=yuv444p[b];[a][b]ssim[out]",
                                inputs: [input, input])
        a = try Frame(width: width, height: height, pixelFormat: .bgra)
        b = try Frame(width: width, height: height, pixelFormat: .bgra)
        result = try Frame()
    }

    /// The SSIM of two premultiplied BGRA pictures (rows `stride` bytes apart).
    public func ssim(_ x: UnsafePointer<UInt8>, strideX: Int, _ y: UnsafePointer<UInt8>, strideY: Int) throws -> Double {
        for (frame, src, stride) in [(a, x, strideX), (b, y, strideY)] {
            try frame.makeWritable()
            guard let dst = frame.data(plane: 0) else {
                throw FFmpegError(code: FFmpegError.invalidArgument, operation: "ssim", message: "no picture plane")
            }
            let line = frame.linesize(plane: 0)
            for row in 0..<height { (dst + row * line).update(from: src + row * stride, count: width * 4) }
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
