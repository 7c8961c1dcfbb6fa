import FFmpeg
import MapTripOutput
import MapTripSupport

/// A render's output, opened once drawing has begun (`begin`, which `Recorder.record` calls as soon as
/// its drawing thread has started): opening the file and the encoder (x264 sets up its threads and
/// lookahead: 6 to 15 ms at 1080p) then overlaps the drawing of the first frame instead of preceding
/// it, as the map's loading did. Its converters need only the plan, not the open encoder. Until it is
/// opened nothing is written; a failure to open is the render's error, as before.
final class OpeningOutput: FrameSink {
    let converterPath: PixelPath?
    private let plan: OutputPlan
    private let width: Int, height: Int
    private var open: (() throws -> MediaOutput)?
    private var output: MediaOutput?

    init(plan: OutputPlan, format: FrameFormat, open: @escaping () throws -> MediaOutput) throws {
        self.plan = plan
        width = format.width
        height = format.height
        self.open = open
        converterPath = try MediaOutput.converterPath(plan: plan, width: width, height: height, fps: format.fps)
    }

    /// The output, opened on first use.
    private func opened() throws -> MediaOutput {
        if let output { return output }
        guard let open else {
            throw OutputError.invalidOption("the output failed to open before: it is not opened again")
        }
        self.open = nil
        let made = try open()
        output = made
        return made
    }

    func begin() throws { _ = try opened() }

    func makeConverters(budget: Int) throws -> [PixelConverter]? {
        guard let converterPath else { return nil }
        return try MediaOutput.makeConverters(path: converterPath, width: width, height: height,
                                              transparent: plan.transparent, budget: budget)
    }

    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws { try opened().write(bgra: bgra, stride: stride) }
    func write(converted frame: Frame) throws { try opened().write(converted: frame) }
    func repeatLast() throws { try opened().repeatLast() }
    func finish() throws { try opened().finish() }
    /// Removes what was written (nothing, if it was never opened).
    func cancel() { output?.cancel() }
}
