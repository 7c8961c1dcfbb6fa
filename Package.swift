// swift-tools-version:6.0
import PackageDescription

/// One system-library target per C library (module.modulemap + shim.h, pkg-config, apt provider),
/// one thin Swift module over each, then the maptrip modules on top. Data flows one way:
/// scene file -> Scene -> Timeline -> camera at frame n -> FrameRenderer -> Encoder -> file.
let package = Package(
    name: "maptrip",
    products: [
        .executable(name: "maptrip", targets: ["maptrip"]),
        .executable(name: "maptrip-bench", targets: ["maptrip-bench"]),
        .library(name: "MapTripScene", targets: ["MapTripScene"]),
        .library(name: "MapTripGeometry", targets: ["MapTripGeometry"]),
        .library(name: "MapTripTime", targets: ["MapTripTime"]),
        // For the fuzz harnesses (Fuzz/, a package of its own).
        .library(name: "MapTripRender", targets: ["MapTripRender"]),
        .library(name: "MapTripTiles", targets: ["MapTripTiles"]),
        .library(name: "MapTripStyle", targets: ["MapTripStyle"]),
        .library(name: "VectorTile", targets: ["VectorTile"]),
        .library(name: "MapTripTracks", targets: ["MapTripTracks"]),
        .library(name: "Exif", targets: ["Exif"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Mapbox Vector Tiles' protobuf (Sources/VectorTile/vector_tile.pb.swift, generated once and committed).
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // C libraries, each as Debian ships it.
        .systemLibrary(name: "CCairo", path: "Sources/C/CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CPango", path: "Sources/C/CPango", pkgConfig: "pangocairo",
                       providers: [.apt(["libpango1.0-dev"])]),
        .systemLibrary(name: "CRsvg", path: "Sources/C/CRsvg", pkgConfig: "librsvg-2.0",
                       providers: [.apt(["librsvg2-dev"])]),
        .systemLibrary(name: "CFFmpeg", path: "Sources/C/CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev",
                                          "libavfilter-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CYUV", path: "Sources/C/CYUV",
                       providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CShapelib", path: "Sources/C/CShapelib", pkgConfig: "shapelib",
                       providers: [.apt(["libshp-dev"])]),
        .systemLibrary(name: "CProj", path: "Sources/C/CProj", pkgConfig: "proj",
                       providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/C/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/C/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlibSystem", path: "Sources/C/CZlibSystem", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/C/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CExif", path: "Sources/C/CExif", pkgConfig: "libexif",
                       providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CZip", path: "Sources/C/CZip", pkgConfig: "libzip",
                       providers: [.apt(["libzip-dev"])]),

        // One thin Swift wrapper per C library.
        .target(name: "Cairo", dependencies: ["CCairo"]),
        .target(name: "Pango", dependencies: ["CPango", "Cairo"]),
        .target(name: "Rsvg", dependencies: ["CRsvg", "Cairo"]),
        .target(name: "FFmpeg", dependencies: ["CFFmpeg"]),
        .target(name: "YUV", dependencies: ["CYUV", "RasterKernels"]),
        .systemLibrary(name: "CMalloc", path: "Sources/C/CMalloc"),
        .target(name: "Heap", dependencies: ["CMalloc"]),
        .target(name: "Shapefile", dependencies: ["CShapelib"]),
        .target(name: "Proj", dependencies: ["CProj"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "Curl", dependencies: ["CCurl"]),
        .target(name: "Zlib", dependencies: ["CZlibSystem"]),
        .target(name: "LibXML2", dependencies: ["CLibXML2"]),  // GPX, TCX and KML tracks: SAX events with their positions
        .target(name: "Exif", dependencies: ["CExif"]),  // photos' EXIF: when and where they were taken
        .target(name: "Zip", dependencies: ["CZip"]),  // KMZ tracks (zipped KML), read in memory
        // maptrip's own raster kernels (C: AVX2, AVX-512), imported by RasterKernels only: the one Swift
        // wrapper over them (the CPU check, the contract of "done" or "not done here").
        .target(name: "CRasterKernels", path: "Sources/C/CRasterKernels"),
        .target(name: "RasterKernels", dependencies: ["CRasterKernels"]),

        // maptrip itself.
        // No C imports, one concern each, unit-tested alone: support <- geometry <- scene <- time.
        .target(name: "MapTripSupport"),  // diagnostics, edit distance, wording of messages, file kinds, cache bounds
        .target(name: "MapTripGeometry", dependencies: ["MapTripSupport"]),  // coordinates, geodesy, projections, clipping
        .target(name: "MapTripScene", dependencies: ["MapTripGeometry", "MapTripSupport"]),  // the scene format and loader
        .target(name: "MapTripTime", dependencies: ["MapTripScene", "MapTripGeometry", "MapTripSupport"]),  // timeline, fly-to, plan
        .target(name: "MapTripStyle", dependencies: ["MapTripScene", "MapTripSupport"]),  // MapLibre styles and expressions
        // Recorded tracks (GPX, TCX, FIT, KML/KMZ, GeoJSON) read into one checked model.
        .target(name: "MapTripTracks", dependencies: ["MapTripScene", "MapTripGeometry", "MapTripSupport", "LibXML2", "Exif", "Zip"]),
        // Mapbox Vector Tiles decoded (no C): swift-protobuf's generated types under a plain model.
        .target(name: "VectorTile", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")],
                exclude: ["README.md", "vector_tile.proto"]),
        .target(name: "MapTripRender",
                dependencies: ["MapTripTime", "MapTripScene", "MapTripGeometry", "MapTripSupport", "Cairo", "Pango", "Rsvg",
                               "Shapefile", "Proj", "MapTripTiles", "MapTripStyle", "VectorTile", "RasterKernels", "YUV"]),
        .target(name: "MapTripTiles",
                dependencies: ["MapTripScene", "MapTripGeometry", "MapTripSupport", "VectorTile", "Cairo", "FFmpeg", "SQLite",
                               "Curl", "Zlib"]),
        .target(name: "MapTripOutput", dependencies: ["MapTripSupport", "FFmpeg", "YUV"]),  // targets, pixel paths, codec profiles
        .target(name: "MapTripRecord",
                dependencies: ["MapTripRender", "MapTripTiles", "MapTripOutput", "MapTripGazetteer", "MapTripTime", "MapTripScene", "MapTripStyle",
                               "MapTripTracks",
                               "MapTripGeometry", "MapTripSupport", "FFmpeg", "YUV", "Cairo", "Pango", "Rsvg", "Heap", "SQLite"]),
        .target(name: "MapTripGazetteer", dependencies: ["MapTripScene", "MapTripGeometry", "MapTripSupport", "SQLite"]),  // places by name, offline
        .target(name: "MapTripBatch", dependencies: ["MapTripRecord", "MapTripRender", "MapTripOutput", "MapTripTime", "MapTripScene",
                                                     "MapTripGeometry", "MapTripSupport", "FFmpeg"]),
        .executableTarget(name: "maptrip", dependencies: [
            "MapTripRecord", "MapTripRender", "MapTripTiles", "MapTripOutput", "MapTripTime", "MapTripScene", "MapTripGeometry",
            "MapTripSupport", "FFmpeg", "MapTripGazetteer", "MapTripBatch", "MapTripTracks", "MapTripStyle",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "maptrip-bench",
                         dependencies: ["MapTripRecord", "MapTripRender", "MapTripTiles", "MapTripOutput", "MapTripTime",
                                        "MapTripScene", "MapTripGeometry", "MapTripSupport", "MapTripGazetteer", "MapTripBatch",
                                        "FFmpeg", "YUV", "Cairo", "Heap", "RasterKernels"]),

        .testTarget(name: "MapTripGeometryTests", dependencies: ["MapTripGeometry", "MapTripSupport", "TestSupport"]),
        .testTarget(name: "MapTripSceneTests", dependencies: ["MapTripScene", "MapTripTime", "MapTripGeometry", "MapTripSupport",
                                                              "MapTripTracks", "TestSupport"]),
        .testTarget(name: "MapTripTimeTests", dependencies: ["MapTripTime", "MapTripScene", "MapTripGeometry", "MapTripSupport",
                                                             "TestSupport"]),
        // What the test targets share (a seeded random generator, numeric keys).
        // Test helpers: plain ones (no maptrip imports) for every test target, scene fixtures on top.
        .target(name: "TestBasics", path: "Tests/TestBasics"),
        .target(name: "TestSupport", dependencies: ["MapTripScene", "MapTripGeometry", "TestBasics"], path: "Tests/TestSupport"),
        // The modules' graph against the README's module table.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "WrapperTests",
                    dependencies: ["Cairo", "Pango", "Rsvg", "FFmpeg", "YUV", "Shapefile", "Proj", "SQLite", "Curl",
                                   "Zlib", "Zip", "LibXML2", "Exif", "RasterKernels", "Heap", "TestBasics"]),
        .testTarget(name: "VectorTileTests", dependencies: ["VectorTile", "TestBasics"]),
        .testTarget(name: "MapTripTracksTests", dependencies: ["MapTripTracks", "MapTripGeometry", "MapTripSupport", "TestBasics"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "MapTripRenderTests", dependencies: ["MapTripRender", "MapTripTime", "MapTripScene", "MapTripGeometry",
                                                               "MapTripSupport", "Cairo", "FFmpeg", "Proj", "RasterKernels", "YUV",
                                                               "MapTripTracks", "TestSupport"]),
        .testTarget(name: "MapTripTilesTests",
                    dependencies: ["MapTripTiles", "MapTripRender", "MapTripRecord", "MapTripTime", "MapTripScene", "MapTripGeometry",
                                   "MapTripSupport", "MapTripOutput", "MapTripStyle", "VectorTile", "Cairo", "FFmpeg", "SQLite", "Zlib", "TileServerFixture",
                                   "TestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "MapTripStyleTests", dependencies: ["MapTripStyle", "MapTripScene", "MapTripSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "MapTripGazetteerTests", dependencies: ["MapTripGazetteer", "MapTripScene", "MapTripGeometry", "SQLite"]),
        .testTarget(name: "MapTripOutputTests", dependencies: ["MapTripOutput", "MapTripSupport", "FFmpeg", "YUV", "TestSupport"]),
        .testTarget(name: "MapTripRecordTests",
                    dependencies: ["MapTripRecord", "MapTripBatch", "MapTripRender", "MapTripOutput", "MapTripTime", "MapTripScene",
                                   "MapTripGeometry", "MapTripSupport", "FFmpeg", "Cairo", "TileServerFixture", "TestSupport"]),
        // A tile server on 127.0.0.1 for the tests (Python's standard library, started per test).
        .target(name: "TileServerFixture", dependencies: ["MapTripTiles"], path: "Tests/TileServerFixture",
                exclude: ["tileserver.py"]),
    ]
)
