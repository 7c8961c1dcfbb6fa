import Foundation
import MapTripScene
import MapTripTime
import MapTripRecord
import MapTripRender

/// One share of a batch spread over N workers (`--shard K/N`, K from 0): scenes are assigned by their
/// estimated cost (frames x width x height) with a deterministic greedy, largest first (ties by name),
/// each to the least loaded shard (ties by the lowest index), so the N shards together render every
/// scene exactly once and carry about the same work.
public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    /// This shard, from 0, and the number of shards.
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw BatchError("--shard: the number of shards must be at least 1, not \(count)") }
        guard (0..<count).contains(index) else {
            throw BatchError("--shard: shard \(index) is out of range for \(count) shards (0 to \(count - 1))")
        }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// The file this shard's entries go to, `manifest.K.json`.
    public var manifestName: String { "manifest.\(index).json" }

    /// `K/N`, or `auto`: from a Slurm job array (`SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN` of
    /// `SLURM_ARRAY_TASK_COUNT`) or a Kubernetes Indexed Job (`JOB_COMPLETION_INDEX` of `shards`).
    /// `environment` is the process's environment, read by the caller.
    public static func parse(_ text: String, shards: Int? = nil, environment: [String: String]) throws -> BatchShard {
        if text != "auto" {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
                throw BatchError("--shard '\(text)': expected K/N (K from 0, e.g. 0/4) or auto")
            }
            if let shards, shards != n {
                throw BatchError("--shard \(text) and --shards \(shards) disagree on the number of shards")
            }
            return try BatchShard(index: k, count: n)
        }
        func integer(_ name: String) throws -> Int? {
            guard let value = environment[name] else { return nil }
            guard let n = Int(value.trimmingCharacters(in: .whitespaces)) else {
                throw BatchError("--shard auto: \(name)='\(value)' is not a whole number")
            }
            return n
        }
        if let id = try integer("SLURM_ARRAY_TASK_ID") {
            guard let total = try shards ?? integer("SLURM_ARRAY_TASK_COUNT") else {
                throw BatchError("--shard auto: SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT"
                                 + " (or give --shards N)")
            }
            let min = try integer("SLURM_ARRAY_TASK_MIN") ?? 0
            // --array=0-10:2: IDs 0, 2, ... with SLURM_ARRAY_TASK_STEP 2.
            let step = max(1, try integer("SLURM_ARRAY_TASK_STEP") ?? 1)
            let k = (id - min) % step == 0 ? (id - min) / step : -1
            do { return try BatchShard(index: k, count: total) } catch {
                throw BatchError("--shard auto: SLURM_ARRAY_TASK_ID \(id) (SLURM_ARRAY_TASK_MIN \(min), step \(step))"
                                 + " is not a shard of \(total): submit the array as a range, e.g. --array=0-\(total - 1)")
            }
        }
        if let index = try integer("JOB_COMPLETION_INDEX") {
            guard let total = shards else {
                throw BatchError("--shard auto: JOB_COMPLETION_INDEX is set; give the number of shards with --shards N"
                                 + " (the Job's completions)")
            }
            do { return try BatchShard(index: index, count: total) } catch {
                throw BatchError("--shard auto: JOB_COMPLETION_INDEX \(index) is not a shard of \(total)"
                                 + " (0 to \(total - 1))")
            }
        }
        throw BatchError("--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job"
                         + " (JOB_COMPLETION_INDEX) in the environment; give --shard K/N")
    }

    /// The shard of each item (`costs[i]` for item `i`, named `names[i]`): the greedy, largest first.
    public static func assign(costs: [Int], names: [String], count: Int) -> [Int] {
        precondition(costs.count == names.count && count >= 1)
        let order = costs.indices.sorted { a, b in
            costs[a] != costs[b] ? costs[a] > costs[b] : names[a] != names[b] ? names[a] < names[b] : a < b
        }
        var load = Array(repeating: 0, count: count)
        var shard = Array(repeating: 0, count: costs.count)
        for i in order {
            var best = 0
            for s in 1..<count where load[s] < load[best] { best = s }
            shard[i] = best
            load[best] += costs[i]
        }
        return shard
    }

    /// A scene's estimated cost: frames x width x height of the loaded scene (at `fps` and `width`
    /// when given, as the batch renders it); 1 when it cannot be read (it fails quickly).
    public static func cost(of scene: URL, fps: Int? = nil, width: Int? = nil,
                            resolver: SceneLoader.ResolverSource? = nil) -> Int {
        guard let loaded = try? SceneLoader.loadForRender(contentsOf: scene, resolver: resolver) else { return 1 }
        var format = loaded.video.format
        let w = width ?? format.width
        let h = max(1, Int((Double(format.height) * Double(w) / Double(max(1, format.width))).rounded()))
        if let fps { format.fps = fps }
        let frames = Timeline(scene: loaded, format: format).frameCount
        return max(1, frames) * max(1, w) * h
    }

    /// What a shard renders: its scenes (in the plan's order), their positions in the whole plan, and
    /// the plan's size, for `manifest.K.json`.
    public struct Share: Sendable {
        public var shard: BatchShard
        public var plan: BatchPlan
        public var positions: [Int]
        public var total: Int
    }

    /// This shard's share of `plan`, the costs estimated with `cost`.
    public func share(of plan: BatchPlan, cost: (BatchItem) -> Int) -> Share {
        let shards = Self.assign(costs: plan.items.map(cost), names: plan.items.map(\.name), count: count)
        let positions = shards.indices.filter { shards[$0] == index }
        var part = plan
        part.items = positions.map { plan.items[$0] }
        return Share(shard: self, plan: part, positions: positions, total: plan.items.count)
    }
}

extension BatchManifest {
    /// `manifest.K.json`: one shard's entries and where they stand in the whole batch.
    public struct ShardFile: Codable, Sendable, Equatable {
        public var maptrip: String
        public var shard: Int
        public var shards: Int
        /// The whole batch's number of scenes, and each entry's position in it (from 0).
        public var total: Int
        public var positions: [Int]
        public var scenes: [Entry]
    }

    static func encoded<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }

    static func writeShard(_ report: BatchReport, share: BatchShard.Share, folder: URL) throws {
        let file = ShardFile(maptrip: maptripVersion, shard: share.shard.index, shards: share.shard.count,
                             total: share.total, positions: share.positions, scenes: entries(report))
        try atomicWrite(encoded(file), to: folder.appendingPathComponent(share.shard.manifestName))
    }

    /// Joins the shards' `manifest.K.json` in `folder` into `manifest.json` and `index.html` (entries in
    /// the whole batch's order). Refuses a missing shard, a scene or position twice, and shards that
    /// disagree (number of shards, batch size, maptrip version). Returns the merged entries.
    @discardableResult
    public static func merge(folder: URL) throws -> [Entry] {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: folder.path) else {
            throw BatchError("\(folder.path): cannot read this folder")
        }
        let shardNames = names.filter { name in
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 3 && parts[0] == "manifest" && parts[2] == "json" && Int(parts[1]) != nil
        }.sorted()
        guard !shardNames.isEmpty else { throw BatchError("\(folder.path): no manifest.K.json files to merge") }
        var files: [(String, ShardFile)] = []
        for name in shardNames {
            let url = folder.appendingPathComponent(name)
            do {
                files.append((name, try JSONDecoder().decode(ShardFile.self, from: Data(contentsOf: url))))
            } catch {
                throw BatchError("\(url.path): not a shard manifest (\(error.localizedDescription))")
            }
        }
        let (firstName, first) = files[0]
        var byShard: [Int: String] = [:]
        for (name, f) in files {
            if f.shards != first.shards || f.total != first.total || f.maptrip != first.maptrip {
                throw BatchError("\(name) and \(firstName) are not shards of one batch: \(f.shards) and \(first.shards)"
                                 + " shards, \(f.total) and \(first.total) scenes, maptrip \(f.maptrip) and \(first.maptrip)")
            }
            if name != "manifest.\(f.shard).json" { throw BatchError("\(name) says it is shard \(f.shard)") }
            if let other = byShard[f.shard] { throw BatchError("\(name) and \(other) are both shard \(f.shard)") }
            byShard[f.shard] = name
            if f.positions.count != f.scenes.count {
                throw BatchError("\(name): \(f.scenes.count) scenes but \(f.positions.count) positions")
            }
        }
        if let missing = (0..<first.shards).first(where: { byShard[$0] == nil }) {
            throw BatchError("manifest.\(missing).json is missing: shard \(missing) of \(first.shards) has not finished")
        }
        var merged = [Entry?](repeating: nil, count: first.total)
        var sceneShard: [String: String] = [:]
        for (name, f) in files {
            for (position, entry) in zip(f.positions, f.scenes) {
                guard merged.indices.contains(position) else {
                    throw BatchError("\(name): position \(position) is outside the batch of \(first.total) scenes")
                }
                if let other = sceneShard[entry.scene] {
                    throw BatchError("\(entry.scene) is in both \(other) and \(name): a scene done twice")
                }
                if merged[position] != nil {
                    throw BatchError("\(name): position \(position) (\(entry.scene)) is also another shard's")
                }
                sceneShard[entry.scene] = name
                merged[position] = entry
            }
        }
        if let hole = merged.firstIndex(where: { $0 == nil }) {
            throw BatchError("scene \(hole + 1) of \(first.total) is in no shard's manifest")
        }
        let entries = merged.compactMap { $0 }
        try atomicWrite(encoded(File(maptrip: first.maptrip, scenes: entries)),
                        to: folder.appendingPathComponent("manifest.json"))
        try atomicWrite(Data(gallery(entries).utf8), to: folder.appendingPathComponent("index.html"))
        return entries
    }
}
