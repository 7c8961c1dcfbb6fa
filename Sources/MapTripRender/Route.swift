import Cairo
import Foundation
import MapTripCore
import Rsvg

/// Each leg's line, drawn up to where the vehicle is: legs begun so far, the travelled ones in their
/// travelled style. Lines are split at the antimeridian and drawn on every copy of the world the
/// frame shows, so a Tokyo to San Francisco leg crosses the Pacific.
public final class RouteOverlay: Overlay {
    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard !frame.values.legs.isEmpty else { return }
        let layout = frame.layout
        let copies = PixelTransform.copies(for: frame.viewport)
        cr.save()
        defer { cr.restore() }
        cr.setLineJoin(.round)
        cr.setLineCap(.round)
        for leg in frame.values.legs {
            guard let style = frame.scene.route(into: leg.place), style.path != .none,
                  let line = frame.routes[leg.place] else { continue }
            let points = leg.progress >= 1 ? line.points : line.prefix(leg.progress)
            guard points.count >= 2 else { continue }
            let pieces = RouteLine.splitAtAntimeridian(points).map { $0.map(WebMercator.project) }
            cr.newPath()
            for t in copies {
                for piece in pieces where piece.count >= 2 {
                    cr.move(to: piece[0].x * t.scale + t.offsetX, piece[0].y * t.scale + t.offsetY)
                    for p in piece.dropFirst() { cr.line(to: p.x * t.scale + t.offsetX, p.y * t.scale + t.offsetY) }
                }
            }
            let width = layout.size(style.width)
            let color = leg.travelled ? (style.travelledColor ?? style.color) : style.color
            if let outline = style.outline {
                cr.setDash([])
                cr.setLineCap(.round)
                cr.setLineWidth(width + 2 * max(layout.size(1.5), width * 0.35))
                cr.setSource(outline.withAlpha(outline.alpha * (leg.travelled ? color.alpha : 1)))
                cr.strokePreserve()
            }
            cr.setDash(style.dash.map { layout.size($0) })
            cr.setLineCap(style.dash.isEmpty ? .round : .butt)
            cr.setLineWidth(width)
            cr.setSource(color)
            cr.stroke()
        }
    }
}

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
        let side = frame.layout.size(Self.size)
        let icon = try raster(art, side: side)
        let p = frame.viewport.pixel(vehicle.position)
        cr.save()
        cr.translate(p.x, p.y)
        cr.rotate(vehicle.heading * .pi / 180)
        cr.translate(-Double(icon.width) / 2, -Double(icon.height) / 2)
        cr.setSource(icon, x: 0, y: 0)
        cr.setSourceFilter(.good)
        cr.paint()
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
