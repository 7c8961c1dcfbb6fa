import Cairo
import Foundation
import Rsvg
import Testing

/// The package root, from this file's path (Tests/WrapperTests/RsvgTests.swift).
private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let iconsDirectory = packageRoot.appendingPathComponent("Assets/icons")

/// An icon rendered into a transparent size x size ARGB32 surface.
private struct Raster {
    let size: Int
    private let pixels: [UInt8]  // B, G, R, A premultiplied, `size * 4` bytes a row
    init(_ document: SVGDocument, size: Int) throws {
        let surface = try ImageSurface(width: size, height: size)
        try surface.withContext { cr in
            try document.render(in: cr, x: 0, y: 0, width: Double(size), height: Double(size))
        }
        surface.flush()
        var p = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size * 4 { p[y * size * 4 + x] = surface.data[y * surface.stride + x] }
        }
        self.size = size
        pixels = p
    }
    func alpha(_ x: Int, _ y: Int) -> UInt8 { pixels[(y * size + x) * 4 + 3] }
    /// Opaque and dark: the icon's body colour (#1f2a37), not its white outline.
    func isDark(_ x: Int, _ y: Int) -> Bool {
        let i = (y * size + x) * 4
        return pixels[i + 3] > 200 && pixels[i] < 90 && pixels[i + 1] < 90 && pixels[i + 2] < 90
    }
}

private let icons = ["plane", "car", "train", "ship", "bike", "walk"]

@Suite struct RsvgTests {
    @Test(arguments: icons)
    func iconParsesAndRendersCentred(_ name: String) throws {
        let document = try SVGDocument(contentsOf: iconsDirectory.appendingPathComponent("\(name).svg"))
        let size = try #require(document.intrinsicSize)
        #expect(size.width == 64 && size.height == 64)

        let r = try Raster(document, size: 128)
        let mid = r.size / 2
        // The body crosses the centre line (footprints sit either side of it, so look near it).
        let columns = name == "walk" ? (mid - 24)...(mid + 24) : (mid - 1)...(mid)
        let darkNearCentre = columns.map { x in (0..<r.size).filter { r.isDark(x, $0) }.count }.reduce(0, +)
        #expect(darkNearCentre > 10, "\(name): no dark pixels on the centre column")
        if name != "walk" {
            let darkRows = (0..<r.size).filter { r.isDark(mid, $0) }
            #expect(darkRows.count > r.size / 4, "\(name): centre column mostly empty")
        }
        // Nothing in the corners.
        for (x, y) in [(0, 0), (r.size - 1, 0), (0, r.size - 1), (r.size - 1, r.size - 1),
                       (3, 3), (r.size - 4, 3), (3, r.size - 4), (r.size - 4, r.size - 4)] {
            #expect(r.alpha(x, y) == 0, "\(name): corner (\(x), \(y)) not transparent")
        }
        // Dark pixels both above and below the centre (centred, not drawn in one corner).
        let dark = (0..<r.size).flatMap { y in (0..<r.size).filter { r.isDark($0, y) }.map { ($0, y) } }
        #expect(dark.count > r.size * r.size / 20, "\(name): too little ink (\(dark.count) pixels)")
        let cx = Double(dark.map(\.0).reduce(0, +)) / Double(dark.count)
        let cy = Double(dark.map(\.1).reduce(0, +)) / Double(dark.count)
        #expect(abs(cx - Double(mid)) < 12 && abs(cy - Double(mid)) < 16,
                "\(name): ink centred at (\(cx), \(cy)) in \(r.size)x\(r.size)")
    }

    @Test(arguments: ["plane", "car", "train", "ship"])
    func vehicleIsSymmetricLeftRight(_ name: String) throws {
        let r = try Raster(try SVGDocument(contentsOf: iconsDirectory.appendingPathComponent("\(name).svg")), size: 128)
        var dark = 0, mirrored = 0
        for y in 0..<r.size {
            for x in 0..<r.size where r.isDark(x, y) {
                dark += 1
                if r.isDark(r.size - 1 - x, y) { mirrored += 1 }
            }
        }
        #expect(dark > 0)
        #expect(Double(mirrored) / Double(dark) > 0.95, "\(name): \(mirrored) of \(dark) dark pixels mirrored")
    }

    @Test func rendersIntoTheGivenRectangle() throws {
        let document = try SVGDocument(contentsOf: iconsDirectory.appendingPathComponent("car.svg"))
        let surface = try ImageSurface(width: 128, height: 64)
        try surface.withContext { try document.render(in: $0, x: 64, y: 0, width: 64, height: 64) }
        let leftInk = (0..<64).contains { y in (0..<64).contains { surface.pixel(x: $0, y: y).a != 0 } }
        #expect(!leftInk)
        #expect(surface.pixel(x: 96, y: 32).a == 255)
    }

    @Test func noIntrinsicSizeWithPercentages() throws {
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 10 10"/>"#
        #expect(try SVGDocument(data: Data(svg.utf8)).intrinsicSize == nil)
    }

    @Test func malformedSVGThrowsLibrsvgsMessage() {
        #expect {
            _ = try SVGDocument(data: Data("<svg".utf8))
        } throws: { error in
            guard let error = error as? RsvgError else { return false }
            return !error.message.isEmpty && error.message != "cannot parse SVG"
        }
    }

    @Test func emptyDataThrows() {
        #expect(throws: RsvgError.self) { _ = try SVGDocument(data: Data()) }
    }

    @Test func missingFileThrows() {
        #expect(throws: RsvgError.self) {
            _ = try SVGDocument(contentsOf: URL(fileURLWithPath: "/nonexistent/maptrip-icon.svg"))
        }
    }
}
