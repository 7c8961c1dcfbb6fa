import CFFmpeg

/// Owns a libavfilter graph with video inputs (`buffer` sources named `in0`, `in1`, ...) and one output
/// (a `buffersink` named `out`), built from a filter description such as
/// `[in0]palettegen[out]` or `[in0][in1]paletteuse[out]`.
///
///     let graph = try FilterGraph("[in0]hflip[out]", inputs: [.init(width: w, height: h, pixelFormat: .bgra, frameRate: 30)])
///     try graph.push(frame, input: 0)
///     while try graph.pull(into: result) { use(result); result.unref() }
public final class FilterGraph {
    /// One video input's geometry.
    public struct Input: Sendable {
        public var width: Int
        public var height: Int
        public var pixelFormat: PixelFormat
        public var frameRate: Int

        public init(width: Int, height: Int, pixelFormat: PixelFormat, frameRate: Int) {
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.frameRate = frameRate
        }
    }

    public let description: String
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var sources: [UnsafeMutablePointer<AVFilterContext>] = []
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    public init(_ description: String, inputs: [Input], threads: Int = 1) throws {
        self.description = description
        let what = "avfilter_graph \(description)"
        guard let graph = avfilter_graph_alloc() else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: what)
        }
        self.graph = graph
        graph.pointee.nb_threads = Int32(threads)
        guard let bufferFilter = avfilter_get_by_name("buffer"), let sinkFilter = avfilter_get_by_name("buffersink")
        else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what, message: "no buffer filters")
        }
        // avfilter_graph_parse_ptr links the open ends: `outputs` are our sources' outputs (labels
        // in0, in1, ...), `inputs` our sink's input (label out). It frees both lists.
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = nil
        var sinkInput: UnsafeMutablePointer<AVFilterInOut>? = nil
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&sinkInput)
        }
        for (i, input) in inputs.enumerated() {
            let args = "video_size=\(input.width)x\(input.height):pix_fmt=\(input.pixelFormat.rawValue)"
                + ":time_base=1/\(input.frameRate):frame_rate=\(input.frameRate):pixel_aspect=1/1"
            var source: UnsafeMutablePointer<AVFilterContext>? = nil
            try FFmpegError.check(avfilter_graph_create_filter(&source, bufferFilter, "in\(i)", args, nil, graph),
                                  "\(what): buffer \(args)")
            sources.append(source!)
            let entry = try Self.openEnd("in\(i)", source!, what)
            if outputs == nil {
                outputs = entry
            } else {
                var last = outputs!
                while let next = last.pointee.next { last = next }
                last.pointee.next = entry
            }
        }
        var sink: UnsafeMutablePointer<AVFilterContext>? = nil
        try FFmpegError.check(avfilter_graph_create_filter(&sink, sinkFilter, "out", nil, nil, graph),
                              "\(what): buffersink")
        self.sink = sink
        sinkInput = try Self.openEnd("out", sink!, what)
        try FFmpegError.check(avfilter_graph_parse_ptr(graph, description, &sinkInput, &outputs, nil), what)
        try FFmpegError.check(avfilter_graph_config(graph, nil), "avfilter_graph_config \(description)")
    }

    deinit {
        avfilter_graph_free(&graph)
    }

    /// A labelled open end of the graph description, attached to pad 0 of `filter`.
    private static func openEnd(_ label: String, _ filter: UnsafeMutablePointer<AVFilterContext>,
                                _ what: String) throws -> UnsafeMutablePointer<AVFilterInOut> {
        guard let entry = avfilter_inout_alloc() else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: what)
        }
        entry.pointee.name = av_strdup(label)
        entry.pointee.filter_ctx = filter
        entry.pointee.pad_idx = 0
        entry.pointee.next = nil
        return entry
    }

    /// Sends a frame to input `input` (nil: that input has ended). The frame is referenced, not taken:
    /// the caller may reuse it after `makeWritable()`.
    public func push(_ frame: Frame?, input: Int = 0) throws {
        guard input >= 0, input < sources.count else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "av_buffersrc_add_frame",
                              message: "no input \(input)")
        }
        try FFmpegError.check(
            av_buffersrc_add_frame_flags(sources[input], frame?.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)),
            "av_buffersrc_add_frame \(description)")
    }

    /// The next filtered frame into `frame` (unreferenced first); false when none is ready yet or the
    /// graph has ended.
    public func pull(into frame: Frame) throws -> Bool {
        frame.unref()
        let status = av_buffersink_get_frame(sink, frame.pointer)
        if status == FFmpegError.again || status == FFmpegError.eof { return false }
        try FFmpegError.check(status, "av_buffersink_get_frame \(description)")
        return true
    }
}
