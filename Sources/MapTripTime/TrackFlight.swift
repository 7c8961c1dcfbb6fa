import Foundation
import MapTripGeometry
import MapTripScene

/// How the camera and the vehicle travel a leg that follows a recording (`places[i].track`).
///
/// The camera: a fly-to from the previous place's view out to a view that frames the whole track and
/// both places (`overview`), a hold on it while the vehicle runs the track, then a fly-to in to this
/// place's view. Each part starts where the one before ended, so the camera never jumps; and since the
/// vehicle is shown only while the whole track is framed (with a margin of `margin` of the frame on each
/// side), it stays well inside every frame however far the track wanders from the straight line between
/// the places. The fly-tos take `flyShare` of the leg's frames each, the run the rest. (Framed in the
/// Web Mercator world; on the globe and PROJ maps the same view is flown, near enough for a track.)
///
/// The vehicle: 0 along the track while the camera flies out (not shown: the leg is not begun), then by
/// distance (an even speed) or by the recording's clock over the run, then at the end (not shown) while
/// the camera flies in.
struct TrackFlight: Sendable {
    /// The share of the leg's frames each fly-to takes.
    static let flyShare = 0.2
    /// The share of the frame's width and height kept clear around the track in the overview.
    static let margin = 0.12

    let overview: Camera
    let out: Flight
    let into: Flight
    let line: RouteLine
    let pace: TrackLeg.Pace

    /// `viewWidth`, `viewHeight`: the frame in logical pixels. The overview's zoom is at most the deeper
    /// of the two places' (a short track is not blown up beyond them).
    /// `room`: the share of the framed height added below it (the readouts' panel sits there).
    init(line: RouteLine, pace: TrackLeg.Pace, from: Camera, to: Camera, rho: Double, viewWidth: Double,
         viewHeight: Double, projection: Projection, room: Double = 0) {
        var box = line.worldBounds(including: [from.center, to.center])
        box.maxY += (box.maxY - box.minY) * room
        var fit = Camera.framing(box, margin: Self.margin,
                                 viewWidth: viewWidth, viewHeight: viewHeight)
        fit.zoom = min(fit.zoom, max(from.zoom, to.zoom))
        overview = fit
        let viewSize = max(viewWidth, viewHeight)
        out = Flight(from: from, to: overview, rho: rho, viewSize: viewSize, projection: projection)
        into = Flight(from: overview, to: to, rho: rho, viewSize: viewSize, projection: projection)
        self.line = line
        self.pace = pace
    }

    /// The share of the run done at fraction `u` of the leg's frames: 0 while flying out, 1 flying in.
    func run(at u: Double) -> Double {
        min(max((u - Self.flyShare) / (1 - 2 * Self.flyShare), 0), 1)
    }

    /// Whether the vehicle shows at fraction `u`: during the run only.
    func running(at u: Double) -> Bool { u > Self.flyShare && u < 1 - Self.flyShare }

    /// The fraction of the track's length the vehicle has covered at fraction `u` of the leg's frames.
    func progress(at u: Double) -> Double {
        let r = run(at: u)
        switch pace {
        case .distance: return r
        case .recorded: return line.fraction(atTimeFraction: r) ?? r
        }
    }

    func camera(at u: Double) -> Camera {
        if u < Self.flyShare { return out.camera(at: u / Self.flyShare) }
        if u > 1 - Self.flyShare { return into.camera(at: (u - (1 - Self.flyShare)) / Self.flyShare) }
        return overview
    }
}

extension Camera {
    /// The camera (north up) that frames `box` (in the unit Web Mercator world) in a view of `viewWidth`
    /// by `viewHeight` logical pixels, with `margin` of the frame's width and height clear on each side.
    static func framing(_ box: (minX: Double, minY: Double, maxX: Double, maxY: Double), margin: Double,
                        viewWidth: Double, viewHeight: Double) -> Camera {
        let usable = 1 - 2 * margin
        let spanX = max(box.maxX - box.minX, 1e-12), spanY = max(box.maxY - box.minY, 1e-12)
        let fit = log2(min(viewWidth * usable / spanX, viewHeight * usable / spanY) / WebMercator.tileSize)
        var center = WebMercator.unproject(WorldPoint(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2))
        center.lon = WebMercator.wrapLongitude(center.lon)
        return Camera(center: center, zoom: fit, bearing: 0)
    }
}
