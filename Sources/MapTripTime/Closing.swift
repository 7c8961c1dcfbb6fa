import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// The closing shot (`Scene.closing`), as pure functions of the frame: over the end card's time (the
/// outro, or without one the second half of the last place's rest when there is an end card) the
/// camera pulls out from the last place to a view that frames the whole trip, every place and every
/// route, inside the title-safe area above the end card, then holds it to the last frame. The last
/// place's caption and the distance counter have faded out by the time the end card starts.
struct Closing: Sendable {
    /// Seconds of the pull-out at the least (longer when the bound on the map's speed asks), and the
    /// most of the closing it may take.
    static let moveSeconds = 1.6
    static let moveShare = 0.8
    /// Seconds the closing needs at the least to be made (shorter: the camera stays on the last place).
    static let shortest = 1.0
    /// Layout units kept clear inside the area: a pin's height above its place, a margin elsewhere.
    static let pinRise = 44.0
    static let margin = 16.0

    /// The first frame of the closing (the end card's first frame).
    let start: Int
    /// Frames of the pull-out: from `start + moveFrames` on the camera is `view` exactly.
    let moveFrames: Int
    /// The view of the whole trip.
    let view: Camera
    let flight: Flight

    /// The closing over frames [start, end) from the last place's `from`, framing `points` (places and
    /// route points) in `area` (frame pixels); nil when the stretch is too short.
    init?(start: Int, end: Int, from: Camera, points: [LonLat], area: Box, format: FrameFormat, projection: Projection) {
        let frames = end - start
        guard frames > 0, Double(frames) >= Self.shortest * Double(format.fps) else { return nil }
        self.start = start
        var view = Self.framing(points, in: area, startingFrom: from, format: format, projection: projection)
        view.zoom = min(view.zoom, from.zoom)
        self.view = view
        let viewSize = Double(max(format.width, format.height)) / format.scale
        flight = Flight(from: from, to: view, viewSize: viewSize, projection: projection)
        let flight = flight
        let least = Int((Self.moveSeconds * Double(format.fps)).rounded())
        let most = Int((Self.moveShare * Double(frames)).rounded())
        let needed = ScreenSpeed.frames(format: format, projection: projection, atMost: most) { flight.camera(at: $0) }
        moveFrames = max(1, min(max(least, needed), most))
    }

    /// The camera at frame n (at or after `start`).
    func camera(at n: Int) -> Camera {
        let k = Double(n - start) / Double(moveFrames)
        return k >= 1 ? view : flight.camera(at: max(k, 0))
    }

    /// The area a closing view frames the trip in: the title-safe area above the end card (when there
    /// is one), inset so pins and labels stay inside it.
    static func area(format: FrameFormat, endCard: Bool, safeZone: SafeZone = .standard) -> Box {
        let w = Double(format.width), h = Double(format.height)
        let safe = SafeArea.box(width: w, height: h, insets: safeZone.insets)
        let unit = SafeArea.unit(width: w, height: h)
        let bottom = endCard ? min(safe.maxY, SafeArea.endCardTop * h) : safe.maxY
        return Box(minX: safe.minX + margin * unit, minY: safe.minY + pinRise * unit,
                   maxX: safe.maxX - margin * unit, maxY: bottom - margin * unit)
    }

    /// The camera (the bearing of `from`) that holds every point inside `area`, as large as it can:
    /// from a first guess in the Web Mercator world, moved and zoomed through the projection until the
    /// points' extent on the frame fills the area's tighter side, then zoomed out until every point
    /// is inside (on the globe, a point beyond the horizon counts as outside).
    static func framing(_ points: [LonLat], in area: Box, startingFrom from: Camera, format: FrameFormat,
                        projection: Projection) -> Camera {
        guard let first = points.first else { return from }
        // Longitudes unwrapped along the trip (each within 180 degrees of the one before).
        var unwrapped: [LonLat] = [first]
        for p in points.dropFirst() {
            var lon = p.lon
            let before = unwrapped[unwrapped.count - 1].lon
            lon -= 360 * ((lon - before) / 360).rounded()
            unwrapped.append(LonLat(lon: lon, lat: p.lat))
        }
        let world = unwrapped.map { WebMercator.project($0) }
        let w = Double(format.width), h = Double(format.height)
        let box = (minX: world.map(\.x).min()!, minY: world.map(\.y).min()!, maxX: world.map(\.x).max()!, maxY: world.map(\.y).max()!)
        var camera = Camera.framing(box, margin: 0, viewWidth: (area.maxX - area.minX) / format.scale,
                                    viewHeight: (area.maxY - area.minY) / format.scale)
        camera.bearing = from.bearing
        camera.zoom = min(camera.zoom, from.zoom)
        let areaX = (area.minX + area.maxX) / 2, areaY = (area.minY + area.maxY) / 2
        func viewport(_ c: Camera) -> Viewport {
            Viewport(camera: c, width: format.width, height: format.height, scale: format.scale, projection: projection)
        }
        // Refined through the projection: centred on the area, then scaled to it.
        for _ in 0..<6 {
            let v = viewport(camera)
            let pixels = points.compactMap { v.pixel($0) }
            guard pixels.count == points.count else { camera.zoom -= 0.5; continue }
            let x0 = pixels.map(\.x).min()!, x1 = pixels.map(\.x).max()!
            let y0 = pixels.map(\.y).min()!, y1 = pixels.map(\.y).max()!
            // The frame's centre moved by the extent's offset from the area's centre.
            if let centre = v.location(atPixel: w / 2 + (x0 + x1) / 2 - areaX, h / 2 + (y0 + y1) / 2 - areaY) {
                camera.center = centre
            }
            let k = min((area.maxX - area.minX) / max(x1 - x0, 1e-9), (area.maxY - area.minY) / max(y1 - y0, 1e-9))
            camera.zoom = min(camera.zoom + log2(k), from.zoom)
        }
        // Then out, a little at a time, until nothing is outside.
        func inside(_ c: Camera) -> Bool {
            let v = viewport(c)
            return points.allSatisfy { p in
                guard let q = v.pixel(p) else { return false }
                return q.x >= area.minX && q.x <= area.maxX && q.y >= area.minY && q.y <= area.maxY
            }
        }
        var tries = 0
        while !inside(camera), tries < 200 {
            camera.zoom -= 0.02
            tries += 1
        }
        return camera
    }
}
