import CFFmpeg

/// What a media file says about its (best) audio stream.
public struct AudioStreamInfo: Equatable, Sendable {
    public var codecName: String
    public var sampleRate: Int
    public var channelCount: Int
    public var sampleFormat: SampleFormat
    /// Stream duration in seconds (falls back to the container's); nil when unknown.
    public var duration: Double?
    /// Where the stream starts in the file's timeline, in seconds, as the file says (0 when it does not).
    public var startTime: Double
    public var timeBase: Rational
    /// The index of the stream in the file.
    public var streamIndex: Int
    /// The container format name, e.g. "mp3", "mov,mp4,m4a,3gp,3g2,mj2".
    public var formatName: String
}

/// Owns an input AVFormatContext and a decoder for its best audio stream: demuxes, decodes and hands out
/// the samples as planar float (`[[Float]]`, one array per channel) at a chosen sample rate and channel
/// count (converted with libswresample).
///
/// Positions are in output samples; position 0 is the first sample the decoder gives from the start of
/// the file (after the encoder delay that MP3, AAC in MP4 and Opus declare, which the decoder drops).
/// `seek(to:)` is sample-exact: it seeks the demuxer half a second (plus the codec's pre-roll) before the
/// target, so codec and resampler are warmed up, decodes, and drops the samples before the target, placed
/// by the first frame's timestamp. Seeks near the start, seeks in files whose timestamps are coarser than a
/// sample (Matroska and WebM count milliseconds) and seeks that land after the target (an inexact index)
/// reopen the file and decode from its start instead. Packets the decoder rejects as invalid data
/// are skipped (as players do); a file of which nothing decodes throws the decoder's error.
public final class AudioReader {
    public let path: String
    public let info: AudioStreamInfo
    /// Output sample rate (samples per second per channel).
    public let sampleRate: Int
    /// Output channel count.
    public let channelCount: Int
    /// The position of the next sample `read` hands out, in output samples.
    public var position: Int64 { target }
    /// Frames decoded so far (all seeks included).
    public private(set) var framesDecoded = 0
    /// Packets skipped because the decoder called them invalid.
    public private(set) var packetsSkipped = 0
    /// How many times the file was opened again to decode from its start.
    public private(set) var reopenCount = 0

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let streamIndex: Int32
    private var parameters: UnsafeMutablePointer<AVCodecParameters>
    private let streamTimeBase: Rational
    private var decoder: Decoder
    private let packet: Packet
    private let frame: Frame
    private var resampler: Resampler?

    /// Samples decoded and converted, not yet handed out; they start at `target`.
    private var pending: [[Float]]
    /// Samples before this position are dropped; `pending` starts here.
    private var target: Int64 = 0
    /// Position of the next sample the resampler hands out; nil until the first frame of a pass.
    private var decodedPosition: Int64?
    private var inputEnded = false
    private var ended = false
    /// This pass decodes from the start of the file (its first sample is position 0).
    private var passFromStart = true
    /// Nothing has been read since the file was opened.
    private var untouched = true
    /// The timestamp (stream time base) of position 0, learnt from the first frame decoded from the start.
    private var originTimestamp: Int64?
    private var lastSkippedError: FFmpegError?

    /// Opens `path` (anything libavformat reads) and its best audio stream. `sampleRate` and `channels`
    /// choose the output (default: the stream's own). Throws `FFmpegError` with code `streamNotFound`
    /// when the file has no audio stream.
    public init(path: String, sampleRate: Int? = nil, channels: Int? = nil) throws {
        self.path = path
        let opened = try Self.openInput(path)
        self.context = opened
        do {
            let index = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
            if index == FFmpegError.streamNotFound {
                throw FFmpegError(code: index, operation: "av_find_best_stream audio \(path)",
                                  message: "no audio stream")
            }
            if index == FFmpegError.decoderNotFound {
                throw FFmpegError(code: index, operation: "av_find_best_stream audio \(path)",
                                  message: "no decoder for the audio stream")
            }
            try FFmpegError.check(index, "av_find_best_stream audio \(path)")
            guard let stream = opened.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar else {
                throw FFmpegError(code: FFmpegError.streamNotFound, operation: "av_find_best_stream audio \(path)",
                                  message: "no audio stream")
            }
            streamIndex = index
            self.parameters = parameters
            let p = parameters.pointee
            let channels = channels ?? Int(p.ch_layout.nb_channels)
            let rate = sampleRate ?? Int(p.sample_rate)
            guard channels > 0, channels <= 64, rate > 0, rate <= 1_000_000 else {
                throw FFmpegError(code: FFmpegError.invalidData, operation: "AudioReader \(path)",
                                  message: "invalid audio format: \(channels) channels at \(rate) Hz")
            }
            self.sampleRate = rate
            self.channelCount = channels
            let timeBase = Rational(stream.pointee.time_base)
            streamTimeBase = timeBase
            decoder = try Self.makeDecoder(parameters: parameters, timeBase: timeBase)
            packet = try Packet()
            frame = try Frame()
            pending = Array(repeating: [], count: channels)

            let start = stream.pointee.start_time
            let containerDuration = StatedDuration.container(opened)
            let streamDuration = StatedDuration.stream(stream)
            info = AudioStreamInfo(
                codecName: avcodec_get_name(p.codec_id).map { String(cString: $0) } ?? "unknown",
                sampleRate: Int(p.sample_rate),
                channelCount: Int(p.ch_layout.nb_channels),
                sampleFormat: SampleFormat(rawValue: p.format),
                duration: streamDuration ?? containerDuration,
                startTime: start == maptrip_av_nopts_value() ? 0 : Double(start) * timeBase.doubleValue,
                timeBase: timeBase,
                streamIndex: Int(index),
                formatName: String(cString: opened.pointee.iformat.pointee.name))
        } catch {
            avformat_close_input(&self.context)
            throw error
        }
    }

    deinit { avformat_close_input(&context) }

    /// True once every sample has been handed out.
    public var isAtEnd: Bool { ended && pending[0].isEmpty }

    /// Moves to `seconds` from position 0 (rounded to the nearest output sample): the next `read` starts
    /// exactly there. Past the end, reads return nothing.
    public func seek(to seconds: Double) throws {
        let what = "AudioReader.seek \(path)"
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what, message: "invalid time \(seconds)")
        }
        let samples = Int64((seconds * Double(sampleRate)).rounded())
        // Warm-up before the target: the codec's own pre-roll (Opus: 80 ms) plus half a second, so that
        // the resampler's filter and the codec's overlap (AAC, Vorbis) are filled with real signal.
        let codecRate = Double(parameters.pointee.sample_rate)
        let preroll = 0.5 + (codecRate > 0 ? Double(max(0, parameters.pointee.seek_preroll)) / codecRate : 0)
        let from = seconds - preroll
        // Timestamps coarser than a sample (Matroska and WebM count milliseconds) cannot place the samples
        // exactly: decode from the start instead.
        let tick = streamTimeBase.doubleValue * codecRate
        guard from > 0, streamTimeBase.isValid, codecRate > 0, tick <= 1 else {
            try startOver(target: samples)
            return
        }
        if originTimestamp == nil {
            // Where position 0 is: decode the first frame from the start.
            try startOver(target: 0)
            while decodedPosition == nil && !ended { try decodeMore() }
            guard originTimestamp != nil else {  // nothing decodes: reads return nothing
                target = samples
                return
            }
        }
        let ts = originTimestamp! + Int64((from / streamTimeBase.doubleValue).rounded(.down))
        do {
            try restart(seekingTo: ts, target: samples)
        } catch {
            try startOver(target: samples)
        }
    }

    /// Reads up to `count` samples per channel: `channelCount` arrays of equal length, shorter than `count`
    /// only at the end of the stream (empty arrays after it).
    public func read(_ count: Int) throws -> [[Float]] {
        guard count > 0 else { return Array(repeating: [], count: channelCount) }
        while pending[0].count < count && !ended {
            try decodeMore()
        }
        let n = min(count, pending[0].count)
        var result: [[Float]] = []
        result.reserveCapacity(channelCount)
        for c in 0..<channelCount {
            result.append(Array(pending[c][0..<n]))
            pending[c].removeFirst(n)
        }
        target += Int64(n)
        return result
    }

    /// Reads everything up to the end of the stream.
    public func readAll() throws -> [[Float]] {
        var result: [[Float]] = Array(repeating: [], count: channelCount)
        while true {
            let chunk = try read(1 << 16)
            if chunk[0].isEmpty { return result }
            for c in 0..<channelCount { result[c].append(contentsOf: chunk[c]) }
        }
    }

    // MARK: - Decoding

    /// avformat_open_input + avformat_find_stream_info; closes the input again if the second fails.
    private static func openInput(_ path: String) throws -> UnsafeMutablePointer<AVFormatContext> {
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpegError.check(avformat_open_input(&context, path, nil, nil), "avformat_open_input \(path)")
        guard let opened = context else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avformat_open_input \(path)")
        }
        let status = avformat_find_stream_info(opened, nil)
        if status < 0 {
            avformat_close_input(&context)
            throw FFmpegError(code: status, operation: "avformat_find_stream_info \(path)")
        }
        return opened
    }

    /// A decoder that knows the packets' time base: it then moves frame timestamps past the samples it
    /// drops (encoder delay of MP3 and Opus, edit lists), so they stay true.
    private static func makeDecoder(parameters: UnsafeMutablePointer<AVCodecParameters>, timeBase: Rational) throws
        -> Decoder {
        let decoder = try Decoder(parameters: parameters, threads: 1)
        decoder.context.pointee.pkt_timebase = timeBase.av
        return decoder
    }

    /// Decodes from the very start of the file again: the demuxer exactly as it was when opened (a seek to
    /// time 0 would skip MP4's priming packet, without which the first AAC frame decodes wrong).
    private func startOver(target samples: Int64) throws {
        if !untouched {
            avformat_close_input(&context)
            let opened = try Self.openInput(path)
            context = opened
            guard Int(streamIndex) < Int(opened.pointee.nb_streams), let stream = opened.pointee.streams[Int(streamIndex)],
                  let parameters = stream.pointee.codecpar,
                  parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO else {
                throw FFmpegError(code: FFmpegError.streamNotFound, operation: "avformat_open_input \(path)",
                                  message: "the audio stream is gone")
            }
            self.parameters = parameters
            decoder = try Self.makeDecoder(parameters: parameters, timeBase: streamTimeBase)
            reopenCount += 1
        }
        reset(target: samples, fromStart: true)
    }

    /// Seeks the demuxer to `timestamp` (stream time base; lands at or before it) with a fresh decoder.
    private func restart(seekingTo timestamp: Int64, target samples: Int64) throws {
        guard let context else { return }
        try FFmpegError.check(avformat_seek_file(context, streamIndex, Int64.min, timestamp, timestamp, 0),
                              "avformat_seek_file \(path)")
        untouched = false
        // A new decoder rather than avcodec_flush_buffers: the old one may have been drained.
        decoder = try Self.makeDecoder(parameters: parameters, timeBase: streamTimeBase)
        reset(target: samples, fromStart: false)
    }

    private func reset(target samples: Int64, fromStart: Bool) {
        resampler = nil
        for c in 0..<channelCount { pending[c].removeAll(keepingCapacity: true) }
        target = samples
        decodedPosition = nil
        inputEnded = false
        ended = false
        passFromStart = fromStart
    }

    /// Decodes one frame (or reads more input, or finishes) and adds what comes out to `pending`.
    private func decodeMore() throws {
        let status: Decoder.Output
        do {
            status = try decoder.receive(into: frame)
        } catch let error as FFmpegError where error.code == FFmpegError.invalidData {
            self.packetsSkipped += 1
            self.lastSkippedError = error
            return
        }
        switch status {
        case .frame:
            defer { frame.unref() }
            framesDecoded += 1
            try process(frame)
        case .needsInput:
            try feed()
        case .endOfStream:
            if let resampler { try append(resampler.flush()) }
            ended = true
            if framesDecoded == 0, let lastSkippedError { throw lastSkippedError }
        }
    }

    private func process(_ frame: Frame) throws {
        guard frame.sampleCount > 0 else { return }
        if frame.channelCount == 0 {
            // A decoder that set no layout: the stream's.
            try FFmpegError.check(av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &parameters.pointee.ch_layout),
                                  "av_channel_layout_copy")
        }
        if frame.sampleRate <= 0 { frame.pointer.pointee.sample_rate = parameters.pointee.sample_rate }
        let timestamp = frame.bestEffortTimestamp ?? frame.pts
        if decodedPosition == nil {
            if passFromStart {
                if originTimestamp == nil { originTimestamp = timestamp ?? 0 }
                decodedPosition = 0
            } else {
                guard let timestamp, let position = position(of: timestamp, frame: frame), position <= target else {
                    // No timestamp, or the seek landed after the target (an inexact index): from the start.
                    try startOver(target: target)
                    return
                }
                decodedPosition = position
            }
        }
        if let current = resampler, current.inputFormat != frame.sampleFormat
            || current.inputSampleRate != frame.sampleRate || current.inputChannelCount != frame.channelCount {
            // The stream changed format midway: finish the old converter, start a new one.
            try append(current.flush())
            resampler = nil
        }
        if resampler == nil {
            resampler = try Resampler(inputLayout: &frame.pointer.pointee.ch_layout, inputFormat: frame.sampleFormat,
                                      inputSampleRate: frame.sampleRate, outputChannels: channelCount,
                                      outputFormat: .fltp, outputSampleRate: sampleRate)
        }
        try append(resampler!.convert(frame))
    }

    /// The output position of the first sample of `frame`, the first after a seek, from its timestamp.
    private func position(of timestamp: Int64, frame: Frame) -> Int64? {
        guard let origin = originTimestamp, streamTimeBase.isValid else { return nil }
        let inputRate = Double(frame.sampleRate)
        let samples = Double(timestamp - origin) * streamTimeBase.doubleValue * inputRate
        return Int64((samples * Double(sampleRate) / inputRate).rounded())
    }

    /// Adds converted samples at `decodedPosition`, dropping those before `target`.
    private func append(_ converted: Frame) throws {
        let count = converted.sampleCount
        guard count > 0 else { return }
        let position = decodedPosition ?? target
        decodedPosition = position + Int64(count)
        let end = target + Int64(pending[0].count)  // where pending ends
        let skip = Int(max(0, min(Int64(count), end - position)))
        guard skip < count else { return }
        for c in 0..<channelCount {
            guard let data = converted.audioData(channel: c) else { continue }
            data.withMemoryRebound(to: Float.self, capacity: count) {
                pending[c].append(contentsOf: UnsafeBufferPointer(start: $0 + skip, count: count - skip))
            }
        }
    }

    /// Reads packets until one of the audio stream is sent to the decoder (or the input ends).
    private func feed() throws {
        guard !inputEnded, let context else {
            try decoder.send(nil)
            return
        }
        untouched = false
        inputEnded = try decoder.feed(from: context, packet: packet, stream: Int32(streamIndex), path: path) { error in
            self.packetsSkipped += 1
            self.lastSkippedError = error
        }
    }
}
