import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTime
import MapTripOutput
import MapTripRender
import Pango
import MapTripSupport

/// One `maptrip preview`: a still of the trip in a small fraction of a render. A frame (at a time,
/// or a place at rest) is pixel for pixel the frame `render` encodes there (before YUV); a contact
/// sheet shows every place at rest. Only the frames shown are drawn, and the base map is prepared
/// with their viewports alone: it loads the data their zooms need and fetches only their tiles.
public struct PreviewJob {
    /// What to draw.
    public enum Subject: Equatable, Sendable {
        /// The frame shown this many seconds into the trip (the nearest on the frame grid).
        case time(Double)
        /// Place N (numbered from 1, as `plan` does) at rest: see `restFrame`.
        case place(Int)
        /// Every place at rest, one captioned cell each, in a grid.
        case sheet
    }

    public var scene: URL
    public var subject: Subject
    /// A `.png` (exact) or `.jpg` path; nil: beside the scene, `NAME.preview.png` (`NAME.sheet.png`
    /// for a sheet).
    public var output: URL?
    /// The frame's width in pixels, the same view (as `render --width`); for a sheet, the width of
    /// its cells (default `defaultCellWidth`). Nil: the scene's size.
    public var width: Int?
    public var environment: RenderEnvironment

    public init(scene: URL, subject: Subject, output: URL? = nil, width: Int? = nil,
                environment: RenderEnvironment) {
        self.scene = scene
        self.subject = subject
        self.output = output
        self.width = width
        self.environment = environment
    }

    /// A sheet's cells are this wide unless a width is given.
    public static let defaultCellWidth = 480

    /// `trip.json` -> `trip.preview.png` (a frame) or `trip.sheet.png` (a sheet).
    public static func defaultOutput(for scene: URL, subject: Subject) -> URL {
        RenderJob.defaultOutput(for: scene, extension: subject == .sheet ? "sheet.png" : "preview.png")
    }

    /// The frame of place `index` (from 0) at rest: the last frame of its slot, where the camera has
    /// arrived and stays; for the first place, the last one with its title card fully shown (the
    /// default poster). Nil when the slot has no frame (a dwell shorter than a frame).
    public static func restFrame(ofPlace index: Int, in timeline: Timeline) -> Int? {
        let slot = timeline.slots[index]
        guard slot.frameCount > 0 else { return nil }
        return index == 0 ? PosterWriter.defaultFrame(timeline) : slot.endFrame - 1
    }

    /// Checks everything (the scene, the subject against it, the output), draws and writes the
    /// picture. Nothing is written when anything fails; an existing output is replaced atomically.
    public func run(cancellation: Cancellation = Cancellation()) throws -> PreviewSummary {
        let clock = ContinuousClock()
        let start = clock.now
        let read = try RenderJob.loadScene(scene, transparent: false, environment: environment)
        let loaded = read.scene
        let files = read.files
        if let width, !(16...8192).contains(width) {
            throw OutputError.invalidOption("--width \(width) is outside 16-8192")
        }
        // The picture an H.264 render draws at this width (the same view), at the scene's rate.
        let drawWidth = subject == .sheet ? (width ?? Self.defaultCellWidth) : width
        let format = OutputPlan.frameFormat(codec: .h264, width: drawWidth, fps: nil, scene: loaded.video.format)
        let projection = try Projection.make(for: loaded)
        let timeline = Timeline(scene: loaded, format: format, projection: projection)
        let shots = try Self.shots(subject, timeline: timeline)
        var layout: SheetLayout?
        if subject == .sheet {
            let l = SheetLayout(count: shots.count, cellWidth: format.width, cellHeight: format.height)
            try l.checkSize()
            layout = l
        }
        // Last, as it creates the output's folder: never the scene nor a file it names.
        let given = output ?? Self.defaultOutput(for: scene, subject: subject)
        let url = given.standardizedFileURL
        if OutputPlan.sameFile(url, scene) {
            throw PreviewError.wouldOverwriteScene(given.relativePath)
        }
        try PosterWriter.check(url, inputs: files, label: subject == .sheet ? "sheet" : "preview")

        let baseMap = try RenderJob.baseMap(for: loaded, format: format, sceneFile: scene, environment: environment)
        let media = try SceneMedia.load(for: loaded, format: format, sceneFile: scene, assets: environment.assets)
        let renderer = try FrameRenderer(scene: loaded, format: format, baseMap: baseMap, media: media,
                                         projection: projection, fastPaths: environment.fastPaths)
        // Only these frames' viewports: the base map loads and fetches nothing else.
        try baseMap.prepare(for: shots.compactMap(\.frame).map { renderer.viewport(timeline.camera(at: $0)) })
        // Planned over the whole trip, as a render plans it: a frame looks as it will in the video.
        renderer.planBaseMap(timeline)
        let transparent = loaded.background == .transparent
        let size: (width: Int, height: Int)
        if let layout {
            let sheet = try ContactSheet(layout: layout)
            for (i, shot) in shots.enumerated() {
                if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
                var thumbnail: ImageSurface?
                if let n = shot.frame {
                    try renderer.render(timeline.values(at: n), frame: n)
                    thumbnail = renderer.surface
                }
                try sheet.draw(cell: i, thumbnail: thumbnail, caption: Self.caption(shot, scene: loaded))
            }
            try PosterWriter.write(try sheet.finish(), transparent: transparent, to: url)
            size = (layout.width, layout.height)
        } else {
            try renderer.render(timeline.values(at: shots[0].frame!), frame: shots[0].frame!)
            if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
            try PosterWriter.write(renderer.surface, transparent: transparent, to: url)
            size = (format.width, format.height)
        }
        let d = clock.now - start
        return PreviewSummary(output: url, width: size.width, height: size.height, shots: shots, sheet: layout,
                              frameCount: timeline.frameCount, duration: timeline.duration,
                              seconds: Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18,
                              warnings: read.warnings + baseMap.warnings, inputs: [scene] + files)
    }

    /// The frames a subject shows, checked against the timeline.
    static func shots(_ subject: Subject, timeline: Timeline) throws -> [PreviewSummary.Shot] {
        let count = timeline.slots.count
        func shot(place index: Int) -> PreviewSummary.Shot {
            let n = restFrame(ofPlace: index, in: timeline)
            return PreviewSummary.Shot(place: index + 1, frame: n, time: n.map(timeline.time(ofFrame:)))
        }
        switch subject {
        case .time(let t):
            guard t.isFinite, t >= 0, t <= timeline.duration else {
                throw PreviewError.timeOutOfRange(t, duration: timeline.duration)
            }
            let n = PosterWriter.frame(at: t, in: timeline)
            return [PreviewSummary.Shot(place: timeline.slotIndex(at: n) + 1, frame: n, time: timeline.time(ofFrame: n))]
        case .place(let number):
            guard (1...count).contains(number) else { throw PreviewError.noSuchPlace(number, count: count) }
            let s = shot(place: number - 1)
            guard s.frame != nil else {
                throw PreviewError.neverOnScreen(number, name: timeline.slots[number - 1].place.name, fps: timeline.fps)
            }
            return [s]
        case .sheet:
            return (0..<count).map(shot(place:))
        }
    }

    /// A sheet cell's caption, `3 · Busan · 0:09.0`: on one line, left to right, the name isolated
    /// (U+2068...U+2069) so that a right-to-left name (القاهرة) neither turns the caption around nor
    /// swaps its neighbours.
    public static func caption(_ shot: PreviewSummary.Shot, scene: Scene) -> String {
        let place = shot.place ?? 1
        let name = String(scene.places[place - 1].name.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : Character($0)
        })
        return "\u{200E}\(place) · \u{2068}\(name)\u{2069} · " + (shot.time.map(Plan.clock) ?? "not on screen")
    }
}

/// What a preview drew and wrote.
public struct PreviewSummary: Sendable {
    /// One frame shown: the place it belongs to (from 1), its frame number and time (nil for a place
    /// whose dwell is shorter than a frame, never on screen).
    public struct Shot: Equatable, Sendable {
        public var place: Int?
        public var frame: Int?
        public var time: Double?
    }

    public var output: URL
    /// The written image's size.
    public var width: Int
    public var height: Int
    /// The frames drawn: one, or one per place for a sheet, in order.
    public var shots: [Shot]
    /// Where a sheet's cells are (nil for a single frame).
    public var sheet: SheetLayout?
    /// The whole trip's length, for context.
    public var frameCount: Int
    public var duration: Double
    /// Wall-clock seconds the preview took.
    public var seconds: Double
    /// Problems that did not stop it (failed tiles, ...).
    public var warnings: [String]
    /// The scene and every file it names: what a watch should look at.
    public var inputs: [URL]
}

/// A preview that cannot be made as asked.
public enum PreviewError: Error, CustomStringConvertible, Equatable, DiagnosticConvertible {
    case noSuchPlace(Int, count: Int)
    case timeOutOfRange(Double, duration: Double)
    case neverOnScreen(Int, name: String, fps: Int)
    case sheetTooLarge(width: Int, height: Int, cellWidth: Int, fits: Int)
    case wouldOverwriteScene(String)

    public var description: String {
        switch self {
        case .noSuchPlace(let n, let count):
            "--place \(n): the scene has \(count) place\(count == 1 ? "" : "s"); give a number from 1 to \(count)"
        case .timeOutOfRange(let t, let duration):
            "--at \(Self.number(t)): the trip is \(String(format: "%.3f", duration)) s long; "
                + "give a time from 0 to \(Self.number(duration))"
        case .neverOnScreen(let n, let name, let fps):
            "--place \(n) (\(name)) is never on screen: its dwell is shorter than a frame at \(fps) fps"
        case .sheetTooLarge(let w, let h, let cell, let fits):
            "a contact sheet with \(cell)-pixel cells would be \(w)x\(h) pixels; give a smaller --width "
                + "(at most \(fits))"
        case .wouldOverwriteScene(let path):
            "preview \(path) is the scene file; it would be overwritten (name the image, e.g. "
                + "\(((path as NSString).lastPathComponent as NSString).deletingPathExtension).preview.png)"
        }
    }

    static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(format: "%.6g", x)
    }
}

/// Where a contact sheet's cells go: `columns` = ceil(sqrt(count)) across, a caption band under
/// each thumbnail, even gaps and margins, all proportional to the cell width.
public struct SheetLayout: Equatable, Sendable {
    public var count: Int
    public var columns: Int
    public var rows: Int
    /// A thumbnail's size (the frame drawn at the cell width).
    public var cellWidth: Int
    public var cellHeight: Int
    /// The caption band under each thumbnail, and its font size.
    public var captionHeight: Int
    public var fontSize: Double
    /// Between cells, and around the sheet.
    public var gap: Int

    /// Sheets larger than this (in pixels) are refused.
    public static let maxPixels = 1 << 26
    public static let maxSide = 16384

    public init(count: Int, cellWidth: Int, cellHeight: Int) {
        self.count = count
        columns = max(1, Int(Double(count).squareRoot().rounded(.up)))
        rows = max(1, (count + columns - 1) / columns)
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        fontSize = max(10, Double(cellWidth) * 18 / 480)
        captionHeight = Int((fontSize * 2).rounded())
        gap = max(6, Int((Double(cellWidth) / 40).rounded()))
    }

    public var width: Int { columns * cellWidth + (columns + 1) * gap }
    public var height: Int { rows * (cellHeight + captionHeight) + (rows + 1) * gap }

    /// The top-left corner of cell `i`'s thumbnail (row by row, from the top left).
    public func origin(ofCell i: Int) -> (x: Int, y: Int) {
        let column = i % columns, row = i / columns
        return (gap + column * (cellWidth + gap), gap + row * (cellHeight + captionHeight + gap))
    }

    func checkSize() throws {
        guard width * height > Self.maxPixels || width > Self.maxSide || height > Self.maxSide else { return }
        // The widest cell that fits, at this aspect ratio.
        var fits = cellWidth
        while fits > 16 {
            fits = max(16, fits * 3 / 4)
            let l = SheetLayout(count: count, cellWidth: fits, cellHeight: max(2, cellHeight * fits / cellWidth))
            if l.width * l.height <= Self.maxPixels && l.width <= Self.maxSide && l.height <= Self.maxSide { break }
        }
        throw PreviewError.sheetTooLarge(width: width, height: height, cellWidth: cellWidth, fits: fits - fits % 2)
    }
}

/// Draws a contact sheet with Cairo and Pango: thumbnails copied in exactly (pixel for pixel), a
/// caption under each.
final class ContactSheet {
    let layout: SheetLayout
    let surface: ImageSurface
    private let cr: Context
    private let font: FontDescription

    static let background = Color(hex: "#26282b")!
    static let captionColor = Color(hex: "#f1f1ee")!
    static let emptyCell = Color(hex: "#3a3d42")!

    init(layout: SheetLayout) throws {
        self.layout = layout
        surface = try ImageSurface(width: layout.width, height: layout.height)
        cr = try Context(surface: surface)
        font = try FontDescription("Noto Sans Semi-Bold")
        font.setAbsoluteSize(layout.fontSize)
        cr.setSource(Self.background)
        cr.paint()
    }

    /// Cell `i`: the thumbnail (nil: an empty cell) and its caption, ellipsized to the cell's width.
    func draw(cell i: Int, thumbnail: ImageSurface?, caption: String) throws {
        let o = layout.origin(ofCell: i)
        let x = Double(o.x), y = Double(o.y), w = Double(layout.cellWidth), h = Double(layout.cellHeight)
        cr.save()
        cr.rectangle(x, y, w, h)
        if let thumbnail {
            // An integer offset and the SOURCE operator: the frame's pixels, alpha included, unchanged.
            cr.setOperator(.source)
            cr.setSource(thumbnail, x: x, y: y)
        } else {
            cr.setSource(Self.emptyCell)
        }
        cr.fill()
        cr.restore()

        let text = try Layout(context: cr)
        text.setFont(font)
        text.setWidth(w)
        text.setEllipsizeEnd()
        text.text = caption
        let top = y + h + (Double(layout.captionHeight) - text.size.height) / 2
        cr.save()
        cr.newPath()
        cr.move(to: x, top)
        cr.setSource(Self.captionColor)
        text.show(in: cr)
        cr.restore()
        try cr.checkStatus("draw contact sheet")
    }

    /// The finished sheet, flushed and ready to encode.
    func finish() throws -> ImageSurface {
        try cr.checkStatus("draw contact sheet")
        surface.flush()
        return surface
    }
}
