import Foundation
import Testing
import TestSupport
import MapTripGeometry
@testable import MapTripScene

/// Route colours (#59): the values along a recording, the range they span, the palettes.
@Suite("Route colours")
struct RouteColoringTests {
    /// A seeded straight ride north: `n` points `metres` apart every `seconds`, heights climbing
    /// `climb` metres a point, with noise of up to 1 m in height.
    static func ride(seed: UInt64, n: Int, metres: Double, seconds: Double, climb: Double) -> TrackGeometry {
        var rng = SplitMix64(seed: seed)
        let points = (0..<n).map { LonLat(lon: 8.5, lat: 47.0 + Double($0) * metres / 1000 / 111.195) }
        let heights = (0..<n).map { 400 + Double($0) * climb + (rng.unit() - 0.5) }
        return TrackGeometry(points: points, times: (0..<n).map { Double($0) * seconds }, altitudes: heights)
    }

    @Test func speedElevationAndGradientAreTheRecordingsInTheScenesUnits() throws {
        let track = Self.ride(seed: 5904, n: 300, metres: 10, seconds: 2, climb: 0.5)
        // 5 m/s: 18 km/h, 11.18 mph, away from the ends (the window is clamped there).
        let kmh = try #require(RouteColoring(by: .speed).values(track, units: .metric))
        let mph = try #require(RouteColoring(by: .speed).values(track, units: .imperial))
        for k in 20..<280 {
            #expect(abs(kmh[k] - 18) < 0.05)
            #expect(abs(mph[k] - 18 / 1.609344) < 0.05)
        }
        let feet = try #require(RouteColoring(by: .elevation).values(track, units: .imperial))
        #expect(abs(feet[100] - (track.heights![100] / 0.3048)) < 1e-9)
        // 0.5 m up every 10 m: 5 %, the noise averaged over 100 m (at most 1 m / 100 m: 1 %).
        let gradient = try #require(RouteColoring(by: .gradient).values(track, units: .metric))
        for k in 20..<280 { #expect(abs(gradient[k] - 5) < 1.1) }
    }

    @Test func theRangeIsTheScenesOrThe2ndTo98thPercentile() {
        var rng = SplitMix64(seed: 5905)
        var values = (0..<1000).map { _ in 10 + rng.unit() * 20 }
        values[3] = 900   // a GPS spike
        let range = RouteColoring(by: .speed).range(for: values)
        #expect(range.upperBound < 31 && range.upperBound > 29)
        #expect(range.lowerBound > 10 && range.lowerBound < 11)
        #expect(RouteColoring(by: .speed, range: 0...50).range(for: values) == 0...50)
        // A gradient's is even about 0, so level ground is the palette's middle.
        let g = RouteColoring(by: .gradient).range(for: [-2, -1, 0, 3, 8] + Array(repeating: 1, count: 100))
        #expect(g.lowerBound == -g.upperBound)
        #expect(RouteColoring(by: .gradient).palette == .redBlue)
        #expect(RouteColoring(by: .speed).palette == .viridis)
    }

    @Test func palettesRunFromTheirFirstStopToTheirLast() throws {
        for palette in RoutePalette.allCases {
            #expect(palette.color(at: 0) == palette.stops.first)
            #expect(palette.color(at: 1) == palette.stops.last)
        }
        #expect(RoutePalette.viridis.color(at: 0).description == "#440154")
        #expect(RoutePalette.magma.color(at: 1).description == "#fcfdbf")
        let white = try #require(Color(hex: "#f7f7f7"))
        #expect(RoutePalette.redBlue.color(at: 0.5) == white)
        // Buckets: the ends of the range in the first and last, values beyond clamped.
        #expect(RouteColoring.bucket(-5, in: 0...10) == 0)
        #expect(RouteColoring.bucket(10, in: 0...10) == RouteColoring.buckets - 1)
        #expect(RouteColoring.bucket(5, in: 0...10) == RouteColoring.buckets / 2)
    }

    @Test func missingHeightsAreFilledFromTheirNeighbours() {
        #expect(TrackGeometry.filled([nil, 10, nil, nil, 40, nil]) == [10, 10, 20, 30, 40, 40])
        #expect(TrackGeometry.filled([nil, nil]) == nil)
    }
}

/// The looks' keys as the loader reads them.
@Suite("Route looks in scenes")
struct RouteLooksSceneTests {
    static let places = #""places": [ { "lat": 37.5665, "lon": 126.978 }, { "lat": 35.1796, "lon": 129.0756 } ]"#

    @Test func keysBecomeTheScenesValues() throws {
        let json = #"{ "units": "imperial", "style": { "route": { "colorBy": "gradient", "range": [-8, 8] } }, "#
            + #""privacy": [ { "lat": 37.5, "lon": 127, "radius": 500 } ], "# + Self.places + " }"
        let report = SceneLoader.check(Data(json.utf8), file: "looks.json")
        let scene = try #require(report.scene, "\(report.errors)")
        #expect(scene.units == .imperial)
        #expect(scene.route.coloring == RouteColoring(by: .gradient, palette: .redBlue, range: -8...8))
        #expect(scene.privacy == [PrivacyZone(center: LonLat(lon: 127, lat: 37.5), radius: 500)])
        // Colours where no line follows a recording are said to be ignored.
        #expect(report.warnings.contains { $0.path == "style.route.colorBy" && $0.message.contains("no line follows a recording") },
                "\(report.warnings)")
    }

    @Test func aPaletteWithoutColorByIsIgnoredWithAWarning() throws {
        let json = #"{ "route": { "palette": "magma" }, "# + Self.places + " }"
        let report = SceneLoader.check(Data(json.utf8), file: "looks.json")
        #expect(report.scene?.route.coloring == nil)
        #expect(report.warnings.contains { $0.path == "route.palette" && $0.message == "palette is ignored: the route has no colorBy" },
                "\(report.warnings)")
    }

    @Test func badValuesAreErrorsAtTheirPaths() {
        for (json, path) in [(#"{ "route": { "colorBy": "speed", "range": [5] }, "# + Self.places + " }", "route.range"),
                             (#"{ "route": { "colorBy": "pace" }, "# + Self.places + " }", "route.colorBy"),
                             (#"{ "privacy": [ { "lat": 37.5, "lon": 127, "radius": -1 } ], "# + Self.places + " }", "privacy[0].radius"),
                             (#"{ "privacy": [ { "lat": 37.5, "radius": 10 } ], "# + Self.places + " }", "privacy[0]"),
                             (#"{ "units": "furlongs", "# + Self.places + " }", "units")] {
            let report = SceneLoader.check(Data(json.utf8), file: "looks.json")
            #expect(report.errors.contains { $0.path == path }, "\(json): \(report.errors)")
        }
    }
}
