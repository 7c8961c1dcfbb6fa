import Foundation
import SwiftProtobuf

/// A failure to read a Mapbox Vector Tile: the protobuf is not one (truncated, bad wire format), or
/// its content breaks the MVT 2.1 specification (a geometry command with a bad count, a tag naming a
/// key or value that is not there, a layer without a name). `place` says where: the layer by name
/// and the feature by index.
public struct MVTError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    /// "layer \"roads\" feature 12", or "" for the tile as a whole.
    public let place: String

    public init(_ message: String, place: String = "") {
        self.message = message
        self.place = place
    }

    public var description: String {
        "not a valid vector tile: " + (place.isEmpty ? "" : place + ": ") + message
    }
}

/// A property value of a vector tile feature (MVT's `Value`: float values widen to double, sint
/// values read as int).
public enum VectorValue: Equatable, Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case double(Double)
    case int(Int64)
    case uint(UInt64)
    case bool(Bool)

    /// The value as a number, when it is one (int, uint, double; bool and string are not).
    public var number: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .string, .bool: return nil
        }
    }

    /// The value as a string, when it is one.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var description: String {
        switch self {
        case .string(let s): return s
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .int(let i): return String(i)
        case .uint(let u): return String(u)
        case .bool(let b): return b ? "true" : "false"
        }
    }
}

/// A vertex in tile coordinates: 0...extent across the tile, x to the east, y down (south). Points
/// of features that spill over the tile's edge (into its buffer) lie outside 0...extent.
public struct TilePoint: Equatable, Hashable, Sendable {
    public var x: Int32
    public var y: Int32

    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}

/// The geometry type a feature states.
public enum VectorGeometryType: Int, Sendable, Equatable {
    case unknown = 0
    case point = 1
    case lineString = 2
    case polygon = 3
}

/// One feature of a layer, decoded.
public struct VectorFeature: Equatable, Sendable {
    /// The feature's id, when it has one.
    public var id: UInt64?
    public var type: VectorGeometryType
    /// The feature's tags as key -> value.
    public var properties: [String: VectorValue]
    /// The geometry's parts in tile coordinates (y down): for points, one part per point (each of one
    /// point); for lines, one part per line; for polygons, one part per ring, each closed (its first
    /// point repeated at the end), exterior rings clockwise on screen (positive area by the shoelace
    /// sum with y down) and holes the other way, as the specification writes them.
    public var geometry: [[TilePoint]]
    /// For polygons: the rings grouped into polygons, each an exterior ring followed by its holes
    /// (a ring winding like the first ring starts a new polygon; one winding the other way is a hole
    /// of the polygon before it). Zero-area rings are left out. Empty for other types.
    public var polygons: [[[TilePoint]]]

    public init(id: UInt64?, type: VectorGeometryType, properties: [String: VectorValue], geometry: [[TilePoint]]) {
        self.id = id
        self.type = type
        self.properties = properties
        self.geometry = geometry
        self.polygons = type == .polygon ? VectorFeature.classifyRings(geometry) : []
    }

    /// Twice the signed area of a ring by the shoelace sum (positive: clockwise with y down).
    public static func signedArea(_ ring: [TilePoint]) -> Int64 {
        guard ring.count >= 3 else { return 0 }
        var sum: Int64 = 0
        var previous = ring[ring.count - 1]
        for p in ring {
            sum += Int64(previous.x) * Int64(p.y) - Int64(p.x) * Int64(previous.y)
            previous = p
        }
        return sum
    }

    /// Rings grouped into polygons by winding (see `polygons`).
    public static func classifyRings(_ rings: [[TilePoint]]) -> [[[TilePoint]]] {
        var polygons: [[[TilePoint]]] = []
        var exteriorPositive: Bool?
        for ring in rings {
            let area = signedArea(ring)
            if area == 0 { continue }
            let positive = area > 0
            if exteriorPositive == nil { exteriorPositive = positive }
            if positive == exteriorPositive || polygons.isEmpty {
                polygons.append([ring])
            } else {
                polygons[polygons.count - 1].append(ring)
            }
        }
        return polygons
    }
}

/// One layer of a tile, decoded.
public struct VectorTileLayer: Equatable, Sendable {
    public var name: String
    /// The MVT version the layer states (1 or 2).
    public var version: Int
    /// Tile coordinates across the tile (4096 unless stated).
    public var extent: Int
    public var features: [VectorFeature]

    public init(name: String, version: Int = 2, extent: Int = 4096, features: [VectorFeature]) {
        self.name = name
        self.version = version
        self.extent = extent
        self.features = features
    }
}

/// A Mapbox Vector Tile (MVT 2.1), decoded from its protobuf bytes (already inflated: see
/// `MapTripTiles.VectorTiles.decode` for gzipped tiles).
public struct VectorTileData: Equatable, Sendable {
    public var layers: [VectorTileLayer]

    /// Bounds on what one tile may hold, so a hostile tile cannot make an unbounded allocation.
    public struct Limits: Sendable, Equatable {
        /// Most bytes of protobuf accepted.
        public var maxBytes: Int
        /// Most vertices in the whole tile.
        public var maxPoints: Int

        public init(maxBytes: Int = 64 << 20, maxPoints: Int = 16 << 20) {
            self.maxBytes = maxBytes
            self.maxPoints = maxPoints
        }
    }

    public init(layers: [VectorTileLayer]) {
        self.layers = layers
    }

    /// Decodes the protobuf bytes of a tile; `MVTError` on anything that is not a valid tile.
    public init(data: Data, limits: Limits = Limits()) throws {
        guard data.count <= limits.maxBytes else {
            throw MVTError("\(data.count) bytes, more than the \(limits.maxBytes) a tile may have")
        }
        if data.count >= 2, data[data.startIndex] == 0x1F, data[data.startIndex + 1] == 0x8B {
            throw MVTError("the bytes are gzipped (inflate them first)")
        }
        let tile: VectorTile_Tile
        do {
            var options = BinaryDecodingOptions()
            options.messageDepthLimit = 10
            tile = try VectorTile_Tile(serializedBytes: data, partial: true, options: options)
        } catch {
            throw MVTError("the protobuf cannot be read (\(Self.describe(error)))")
        }
        var budget = limits.maxPoints
        layers = try tile.layers.map { try Self.decode($0, pointBudget: &budget) }
    }

    /// The layer of that name, if the tile has one.
    public func layer(named name: String) -> VectorTileLayer? {
        layers.first { $0.name == name }
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case BinaryDecodingError.truncated: return "truncated"
        case BinaryDecodingError.malformedProtobuf: return "malformed protobuf"
        case BinaryDecodingError.invalidUTF8: return "a string is not UTF-8"
        case BinaryDecodingError.messageDepthLimit: return "nested too deep"
        default: return "\(error)"
        }
    }

    static func decode(_ layer: VectorTile_Tile.Layer, pointBudget: inout Int) throws -> VectorTileLayer {
        guard layer.hasName else { throw MVTError("a layer has no name") }
        let place = "layer \"\(layer.name)\""
        let version = layer.hasVersion ? Int(layer.version) : 1
        guard version == 1 || version == 2 else {
            throw MVTError("version \(version) is not a Mapbox Vector Tile version this reader knows (1 or 2)", place: place)
        }
        let extent = Int(layer.extent)
        guard extent > 0 else { throw MVTError("extent 0 (tiles need an extent such as 4096)", place: place) }
        let keys = layer.keys
        var values: [VectorValue] = []
        values.reserveCapacity(layer.values.count)
        for (i, v) in layer.values.enumerated() {
            if v.hasStringValue { values.append(.string(v.stringValue)) }
            else if v.hasFloatValue { values.append(.double(Double(v.floatValue))) }
            else if v.hasDoubleValue { values.append(.double(v.doubleValue)) }
            else if v.hasIntValue { values.append(.int(v.intValue)) }
            else if v.hasUintValue { values.append(.uint(v.uintValue)) }
            else if v.hasSintValue { values.append(.int(v.sintValue)) }
            else if v.hasBoolValue { values.append(.bool(v.boolValue)) }
            else { throw MVTError("value \(i) holds none of string, float, double, int, uint, sint, bool", place: place) }
        }
        var features: [VectorFeature] = []
        features.reserveCapacity(layer.features.count)
        for (index, f) in layer.features.enumerated() {
            let fplace = "\(place) feature \(index)"
            let tags = f.tags
            guard tags.count % 2 == 0 else {
                throw MVTError("\(tags.count) tags (tags come in key, value pairs)", place: fplace)
            }
            var properties: [String: VectorValue] = [:]
            properties.reserveCapacity(tags.count / 2)
            var t = 0
            while t < tags.count {
                let k = Int(tags[t]), v = Int(tags[t + 1])
                guard k < keys.count else {
                    throw MVTError("tag key \(k) is beyond the layer's \(keys.count) keys", place: fplace)
                }
                guard v < values.count else {
                    throw MVTError("tag value \(v) is beyond the layer's \(values.count) values", place: fplace)
                }
                properties[keys[k]] = values[v]
                t += 2
            }
            let type = VectorGeometryType(rawValue: f.type.rawValue) ?? .unknown
            let geometry = try decodeGeometry(f.geometry, type: type, place: fplace, pointBudget: &pointBudget)
            features.append(VectorFeature(id: f.hasID ? f.id : nil, type: type, properties: properties, geometry: geometry))
        }
        return VectorTileLayer(name: layer.name, version: version, extent: extent, features: features)
    }

    /// The geometry commands (MoveTo 1, LineTo 2, ClosePath 7; zigzag-encoded parameters, relative to
    /// the cursor) as parts: see `VectorFeature.geometry`.
    public static func decodeGeometry(_ commands: [UInt32], type: VectorGeometryType, place: String = "",
                                      pointBudget: inout Int) throws -> [[TilePoint]] {
        var parts: [[TilePoint]] = []
        var current: [TilePoint] = []
        var x: Int32 = 0, y: Int32 = 0
        var i = 0
        let n = commands.count
        func zigzag(_ v: UInt32) -> Int32 { Int32(bitPattern: (v >> 1) ^ (0 &- (v & 1))) }
        while i < n {
            let command = commands[i] & 0x7, count = Int(commands[i] >> 3)
            let at = i
            i += 1
            switch command {
            case 1, 2:
                guard count > 0 else {
                    throw MVTError("\(command == 1 ? "MoveTo" : "LineTo") with a count of 0 at command \(at)", place: place)
                }
                guard count <= (n - i) / 2 else {
                    throw MVTError("\(command == 1 ? "MoveTo" : "LineTo") of \(count) points at command \(at) needs "
                                   + "\(count * 2) parameters; \(n - i) are left", place: place)
                }
                if command == 1 {
                    if type != .point && count != 1 {
                        throw MVTError("MoveTo of \(count) points at command \(at) (lines and polygons move to one point)",
                                       place: place)
                    }
                } else {
                    if type == .point { throw MVTError("LineTo in a point feature at command \(at)", place: place) }
                    if current.isEmpty { throw MVTError("LineTo before any MoveTo at command \(at)", place: place) }
                }
                pointBudget -= count
                guard pointBudget >= 0 else {
                    throw MVTError("more vertices than the tile may have (at command \(at))", place: place)
                }
                for _ in 0..<count {
                    let (nx, ox) = x.addingReportingOverflow(zigzag(commands[i]))
                    let (ny, oy) = y.addingReportingOverflow(zigzag(commands[i + 1]))
                    guard !ox, !oy else { throw MVTError("a coordinate overflows 32 bits at command \(at)", place: place) }
                    x = nx
                    y = ny
                    i += 2
                    if command == 1 {
                        if !current.isEmpty { parts.append(current) }
                        current = [TilePoint(x: x, y: y)]
                    } else {
                        current.append(TilePoint(x: x, y: y))
                    }
                }
            case 7:
                guard count == 1 else { throw MVTError("ClosePath with a count of \(count) at command \(at)", place: place) }
                guard type != .point && type != .lineString else {
                    throw MVTError("ClosePath in a \(type == .point ? "point" : "line") feature at command \(at)", place: place)
                }
                guard let first = current.first else {
                    throw MVTError("ClosePath before any MoveTo at command \(at)", place: place)
                }
                current.append(first)
                parts.append(current)
                current = []
            default:
                throw MVTError("unknown geometry command \(command) at command \(at)", place: place)
            }
        }
        if !current.isEmpty {
            if type == .polygon {
                throw MVTError("a polygon ring is not closed (no ClosePath after its last LineTo)", place: place)
            }
            parts.append(current)
        }
        if type == .point {
            // One part per point, however the MoveTo counts grouped them.
            return parts.flatMap { $0.map { [$0] } }
        }
        return parts
    }
}
