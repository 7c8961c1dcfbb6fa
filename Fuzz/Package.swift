// swift-tools-version:6.0
import PackageDescription

/// libFuzzer harnesses for maptrip's readers of untrusted files: scenes, shapefiles, images (tiles and
/// photos), MBTiles, vector tiles, PMTiles, style expressions, recorded tracks (FIT, XML, GeoJSON) and photos' EXIF. Built and run by `.ci/fuzz` (with `-sanitize=fuzzer,address`); a package of its
/// own so that the product's builds never see them. Each corpus lives in `Corpus/<name>`.
let package = Package(
    name: "maptrip-fuzz",
    dependencies: [
        .package(name: "maptrip", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(name: "FuzzScene", dependencies: [
            "FuzzSupport", .product(name: "MapTripScene", package: "maptrip"),
            .product(name: "MapTripTime", package: "maptrip"),
        ]),
        .executableTarget(name: "FuzzShapefile", dependencies: [
            "FuzzSupport", .product(name: "MapTripRender", package: "maptrip"),
            .product(name: "MapTripScene", package: "maptrip"),
        ]),
        .executableTarget(name: "FuzzImage", dependencies: [
            "FuzzSupport", .product(name: "MapTripTiles", package: "maptrip"),
        ]),
        .executableTarget(name: "FuzzVectorTile", dependencies: [
            "FuzzSupport", .product(name: "MapTripTiles", package: "maptrip"),
            .product(name: "VectorTile", package: "maptrip"),
        ]),
        .executableTarget(name: "FuzzPMTiles", dependencies: [
            "FuzzSupport", .product(name: "MapTripTiles", package: "maptrip"),
            .product(name: "MapTripGeometry", package: "maptrip"),
        ]),
        // Style expressions and filters (MapLibre's), parsed from any JSON and evaluated.
        .executableTarget(name: "FuzzExpression", dependencies: [
            "FuzzSupport", .product(name: "MapTripStyle", package: "maptrip"),
            .product(name: "MapTripScene", package: "maptrip"),
        ]),
        .executableTarget(name: "FuzzMBTiles", dependencies: [
            "FuzzSupport", .product(name: "MapTripTiles", package: "maptrip"),
            .product(name: "MapTripGeometry", package: "maptrip"),
        ]),
        // Recorded tracks: one harness per parser family.
        .executableTarget(name: "FuzzFIT", dependencies: ["FuzzSupport", .product(name: "MapTripTracks", package: "maptrip")]),
        .executableTarget(name: "FuzzTrackXML", dependencies: ["FuzzSupport", .product(name: "MapTripTracks", package: "maptrip")]),
        .executableTarget(name: "FuzzGeoJSON", dependencies: ["FuzzSupport", .product(name: "MapTripTracks", package: "maptrip")]),
        // Photos' EXIF (libexif, through the Exif wrapper).
        .executableTarget(name: "FuzzExif", dependencies: ["FuzzSupport", .product(name: "Exif", package: "maptrip")]),
    ]
)
