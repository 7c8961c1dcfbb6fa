import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Rsvg

/// What a vehicle looks like: a vector icon (crisp at any size) or an image, drawn pointing up.
public enum VehicleArt {
    case svg(SVGDocument)
    case image(ImageSurface)
}

/// The vehicle on its leg's line during the flight, turned to its heading.
public final class VehicleOverlay: Overlay {
    /// The icon's size in layout units.
    public static let size = 56.0
    /// Each distinct art drawn once at its size (a plane on every leg is one raster).
    private var rasters: [ObjectIdentifier: ImageSurface] = [:]

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let vehicle = frame.values.vehicle, let art = frame.media.vehicles[vehicle.place] else { return }
        guard !PrivacyClipping.hides(vehicle.position, frame.scene.privacy),
              let p = frame.viewport.pixel(vehicle.position) else { return }
        // On arrival it eases into the pin, fading and shrinking (`Arrival`).
        try drawIcon(art, at: p, heading: Self.screenHeading(vehicle, frame.viewport), side: frame.layout.size(Self.size),
                     alpha: vehicle.opacity, shrink: vehicle.opacity < 1 ? Arrival.size(opacity: vehicle.opacity) : 1, in: cr)
    }

    /// The vehicle's heading on the frame (degrees clockwise from up): its heading on the ground,
    /// unless the projection or the bearing turn the map under it, then the direction a step ahead
    /// takes on the frame.
    static func screenHeading(_ vehicle: VehicleValue, _ viewport: Viewport) -> Double {
        if case .webMercator = viewport.projection, !viewport.isRotated { return vehicle.heading }
        let h = vehicle.heading * .pi / 180, step = 0.01
        let lat = vehicle.position.lat
        let ahead = LonLat(lon: vehicle.position.lon + step * sin(h) / max(cos(lat * .pi / 180), 1e-6),
                           lat: min(max(lat + step * cos(h), -90), 90))
        guard let a = viewport.pixel(vehicle.position), let b = viewport.pixel(ahead),
              a.x != b.x || a.y != b.y else { return vehicle.heading - viewport.camera.bearing }
        return atan2(b.x - a.x, a.y - b.y) * 180 / .pi
    }

    /// Draws `art` at its size `side`, centred on frame pixel `p`, turned `heading` degrees clockwise
    /// from up (a playback's movers).
    /// `shrink`: a share of its size to draw it at (its raster scaled).
    func drawIcon(_ art: VehicleArt, at p: (x: Double, y: Double), heading: Double, side: Double, alpha: Double,
                  shrink: Double = 1, in cr: Context) throws {
        let icon = try raster(art, side: side)
        cr.save()
        cr.translate(p.x, p.y)
        cr.rotate(heading * .pi / 180)
        if shrink != 1 { cr.scale(shrink, shrink) }
        cr.translate(-Double(icon.width) / 2, -Double(icon.height) / 2)
        cr.setSource(icon, x: 0, y: 0)
        cr.setSourceFilter(.good)
        if alpha >= 1 { cr.paint() } else { cr.paint(alpha: alpha) }
        cr.restore()
    }

    /// The art drawn once at its size on the frame (kept: the size does not change during a render).
    private func raster(_ art: VehicleArt, side: Double) throws -> ImageSurface {
        let key: ObjectIdentifier
        switch art {
        case .svg(let document): key = ObjectIdentifier(document)
        case .image(let image): key = ObjectIdentifier(image)
        }
        if let r = rasters[key] { return r }
        let n = max(1, Int(side.rounded()))
        let surface = try ImageSurface(width: n, height: n)
        try surface.withContext { cr in
            switch art {
            case .svg(let document):
                try document.render(in: cr, x: 0, y: 0, width: Double(n), height: Double(n))
            case .image(let image):
                // Fit the image in the square, keeping its shape.
                let k = Double(n) / Double(max(image.width, image.height))
                cr.translate((Double(n) - Double(image.width) * k) / 2, (Double(n) - Double(image.height) * k) / 2)
                cr.scale(k, k)
                cr.setSource(image, x: 0, y: 0)
                cr.setSourceFilter(.best)
                cr.paint()
            }
        }
        surface.flush()
        rasters[key] = surface
        return surface
    }
}
