import FFmpeg
import Foundation
import MapTripBatch
import MapTripOutput
import Testing

/// `maptrip batch --shard K/N | auto` and `--merge`: the greedy's balance and determinism, Slurm's and
/// Kubernetes's variables, the merge's refusals, and 2 shards merged equal to a one-shard batch.
@Suite struct ShardTests {
    /// 12 items of varied cost (a few long, many short), named out of cost order.
    static let costs = [84 * 57_600, 3 * 57_600, 240 * 57_600, 96 * 230_400, 1, 84 * 57_600,
                        600 * 57_600, 12 * 921_600, 48 * 57_600, 7, 330 * 57_600, 84 * 57_600]
    static let names = ["k.json", "b.json", "trips/z.json", "a.json", "bad.json", "c.json",
                        "long.json", "hd.json", "d.json", "e.json", "f.json", "trips/a.json"]

    @Test func balancedDeterministicCompleteAndDisjoint() {
        let total = Self.costs.reduce(0, +), largest = Self.costs.max()!
        for n in 1...7 {
            let shards = BatchShard.assign(costs: Self.costs, names: Self.names, count: n)
            // Deterministic: the same again, and the same whatever order the items come in.
            #expect(BatchShard.assign(costs: Self.costs, names: Self.names, count: n) == shards)
            let reversed = BatchShard.assign(costs: Self.costs.reversed(), names: Self.names.reversed(), count: n)
            #expect(Array(reversed.reversed()) == shards, "n = \(n)")
            // Complete and disjoint: every item in exactly one shard, in range.
            #expect(shards.count == Self.costs.count && shards.allSatisfy { (0..<n).contains($0) })
            var seen = [Int](repeating: 0, count: Self.costs.count)
            var loads = [Int](repeating: 0, count: n)
            for k in 0..<n {
                for i in shards.indices where shards[i] == k {
                    seen[i] += 1
                    loads[k] += Self.costs[i]
                }
            }
            #expect(seen.allSatisfy { $0 == 1 }, "n = \(n)")
            // Balanced: the heaviest shard within the largest scene's cost of the mean.
            let mean = Double(total) / Double(n)
            #expect(Double(loads.max()!) <= mean + Double(largest), "n = \(n): \(loads)")
            // Nobody idle while another shard has more than one scene.
            if n <= Self.costs.count { #expect(loads.allSatisfy { $0 > 0 }, "n = \(n): \(loads)") }
        }
        // By cost, not by count: one long scene alone against ten short ones.
        #expect(BatchShard.assign(costs: [10] + Array(repeating: 1, count: 10), names: (0...10).map { "s\($0)" }, count: 2)
                == [0] + Array(repeating: 1, count: 10))
        // Ties by name: equal costs go to shards in name order.
        #expect(BatchShard.assign(costs: [5, 5, 5], names: ["c", "a", "b"], count: 3) == [2, 0, 1])
    }

    @Test func costOfAScene() throws {
        try Trip.withDirectory("shard-cost") { dir in
            let korea = try TripScene.korea.write(to: dir, name: "korea.json")
            #expect(BatchShard.cost(of: korea) == 84 * 320 * 180)
            #expect(BatchShard.cost(of: korea, fps: 48, width: 640) == 168 * 640 * 360)
            try Data("{\"places\": [".utf8).write(to: dir.appendingPathComponent("bad.json"))
            #expect(BatchShard.cost(of: dir.appendingPathComponent("bad.json")) == 1)
            #expect(BatchShard.cost(of: dir.appendingPathComponent("missing.json")) == 1)
        }
    }

    static func error(_ body: () throws -> BatchShard) -> String {
        do {
            let shard = try body()
            return "no error: \(shard)"
        } catch {
            return "\(error)"
        }
    }

    @Test func shardFromArgumentsSlurmAndKubernetes() throws {
        #expect(try BatchShard.parse("1/3", environment: [:]) == BatchShard(index: 1, count: 3))
        #expect(try BatchShard.parse("0/1", environment: ["SLURM_ARRAY_TASK_ID": "5"]) == BatchShard(index: 0, count: 1))
        #expect(Self.error { try BatchShard.parse("3/3", environment: [:]) }.contains("shard 3 is out of range for 3 shards"))
        #expect(Self.error { try BatchShard.parse("0/0", environment: [:]) }.contains("at least 1"))
        #expect(Self.error { try BatchShard.parse("1-3", environment: [:]) }.contains("expected K/N"))
        #expect(Self.error { try BatchShard.parse("1/3", shards: 4, environment: [:]) }.contains("disagree"))

        // Slurm: --array=4-6 gives IDs 4, 5, 6 with MIN 4 and COUNT 3.
        let slurm = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": "6",
                     "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_JOB_ID": "17"]
        #expect(try BatchShard.parse("auto", environment: slurm) == BatchShard(index: 1, count: 3))
        var plain = slurm
        plain["SLURM_ARRAY_TASK_MIN"] = nil
        plain["SLURM_ARRAY_TASK_ID"] = "2"
        #expect(try BatchShard.parse("auto", environment: plain) == BatchShard(index: 2, count: 3))
        var beyond = slurm
        beyond["SLURM_ARRAY_TASK_ID"] = "8"  // --array=4,8: a gap leaves K out of range
        let outOfRange = Self.error { try BatchShard.parse("auto", environment: beyond) }
        #expect(outOfRange.contains("SLURM_ARRAY_TASK_ID 8 (SLURM_ARRAY_TASK_MIN 4, step 1) is not a shard of 3"),
                "\(outOfRange)")
        // --array=10-14:2: IDs 10, 12, 14, step 2.
        let stepped = ["SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "2",
                       "SLURM_ARRAY_TASK_COUNT": "3"]
        #expect(try BatchShard.parse("auto", environment: stepped) == BatchShard(index: 2, count: 3))
        let noCount = Self.error { try BatchShard.parse("auto", environment: ["SLURM_ARRAY_TASK_ID": "1"]) }
        #expect(noCount.contains("SLURM_ARRAY_TASK_COUNT"), "\(noCount)")
        let notNumber = Self.error { try BatchShard.parse("auto", environment: ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"]) }
        #expect(notNumber.contains("SLURM_ARRAY_TASK_ID='x' is not a whole number"), "\(notNumber)")

        // Kubernetes Indexed Job: JOB_COMPLETION_INDEX, N from --shards.
        #expect(try BatchShard.parse("auto", shards: 4, environment: ["JOB_COMPLETION_INDEX": "3"])
                == BatchShard(index: 3, count: 4))
        let noShards = Self.error { try BatchShard.parse("auto", environment: ["JOB_COMPLETION_INDEX": "0"]) }
        #expect(noShards.contains("--shards N"), "\(noShards)")
        let tooBig = Self.error { try BatchShard.parse("auto", shards: 4, environment: ["JOB_COMPLETION_INDEX": "4"]) }
        #expect(tooBig.contains("JOB_COMPLETION_INDEX 4 is not a shard of 4 (0 to 3)"), "\(tooBig)")

        let neither = Self.error { try BatchShard.parse("auto", environment: ["HOME": "/root"]) }
        #expect(neither.contains("neither a Slurm job array") && neither.contains("--shard K/N"), "\(neither)")
    }

    static func writeShard(_ folder: URL, shard: Int, shards: Int, total: Int, positions: [Int], scenes: [String],
                           maptrip: String = "1") throws {
        let entries = scenes.map { s in
            "{\"scene\": \"\(s)\", \"output\": \"\(s.replacingOccurrences(of: ".json", with: ".mp4"))\", \"status\": \"rendered\"}"
        }
        let json = "{\"maptrip\": \"\(maptrip)\", \"shard\": \(shard), \"shards\": \(shards), \"total\": \(total), "
            + "\"positions\": \(positions), \"scenes\": [\(entries.joined(separator: ", "))]}"
        try Data(json.utf8).write(to: folder.appendingPathComponent("manifest.\(shard).json"))
    }

    static func mergeError(_ folder: URL) -> String {
        do {
            let entries = try BatchManifest.merge(folder: folder)
            return "no error: \(entries.map(\.scene))"
        } catch {
            return "\(error)"
        }
    }

    @Test func mergeRefusesMissingDuplicateAndConflictingShards() throws {
        try Trip.withDirectory("shard-merge") { dir in
            #expect(Self.mergeError(dir).contains("no manifest.K.json files to merge"))
            try Self.writeShard(dir, shard: 0, shards: 2, total: 3, positions: [0, 2], scenes: ["a.json", "c.json"])
            #expect(Self.mergeError(dir).contains("manifest.1.json is missing: shard 1 of 2 has not finished"))
            // A scene in two shards.
            try Self.writeShard(dir, shard: 1, shards: 2, total: 3, positions: [1], scenes: ["a.json"])
            #expect(Self.mergeError(dir).contains("a.json is in both manifest.0.json and manifest.1.json"))
            // A position in two shards.
            try Self.writeShard(dir, shard: 1, shards: 2, total: 3, positions: [2], scenes: ["b.json"])
            #expect(Self.mergeError(dir).contains("position 2 (b.json) is also another shard's"))
            // Shards of different batches.
            try Self.writeShard(dir, shard: 1, shards: 3, total: 3, positions: [1], scenes: ["b.json"])
            #expect(Self.mergeError(dir).contains("not shards of one batch"))
            try Self.writeShard(dir, shard: 1, shards: 2, total: 3, positions: [1], scenes: ["b.json"], maptrip: "2")
            #expect(Self.mergeError(dir).contains("not shards of one batch"))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("manifest.json").path))
            // Together: the batch's order, manifest.json and the gallery.
            try Self.writeShard(dir, shard: 1, shards: 2, total: 3, positions: [1], scenes: ["b.json"])
            let entries = try BatchManifest.merge(folder: dir)
            #expect(entries.map(\.scene) == ["a.json", "b.json", "c.json"])
            let html = try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(html.contains("3 of 3 scenes rendered") && html.contains("src=\"b.mp4\""))
            #expect(BatchTests.temporaryFiles(dir).isEmpty)
        }
    }

    /// A shard clears only its own scenes' leftovers: the other shards may be writing from other machines.
    @Test func shardRemovesOnlyItsOwnStaleTemporaryFiles() throws {
        try Trip.withDirectory("shard-stale") { dir in
            let dead = "maptrip-2147483646-1.tmp"  // beyond any pid_max: no such process
            for name in [".a.mp4.\(dead)", ".a.jpg.\(dead)", ".b.mp4.\(dead)", ".manifest.1.json.\(dead)"] {
                try Data("partial".utf8).write(to: dir.appendingPathComponent(name))
            }
            let own = Set(["a.mp4", "a.jpg", "manifest.1.json"].map { dir.appendingPathComponent($0).standardizedFileURL.path })
            let removed = TemporaryFiles.removeStale(in: dir) { own.contains($0.standardizedFileURL.path) }
            #expect(removed.map(\.lastPathComponent).sorted()
                    == [".a.jpg.\(dead)", ".a.mp4.\(dead)", ".manifest.1.json.\(dead)"])
            #expect(BatchTests.tree(dir) == [".b.mp4.\(dead)"])
        }
    }

    /// The shipped examples' shape (Kubernetes cannot run here; Slurm runs them in `.ci/slurm-test`).
    @Test func examplesShape() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples")
        let yaml = try String(contentsOf: examples.appendingPathComponent("kubernetes/render-indexed-job.yaml"),
                              encoding: .utf8)
        func value(_ key: String) -> String? {
            yaml.split(separator: "\n").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
        }
        #expect(yaml.contains("kind: Job") && value("completionMode") == "Indexed")
        let n = try #require(value("completions"))
        #expect(value("parallelism") == n)
        let command = try #require(value("command"))
        #expect(command.contains(#""batch", "/data/scenes", "-o", "/data/clips", "--shard", "auto", "--shards", "\#(n)""#),
                "\(command)")
        // One claim, declared and mounted where the command reads and writes.
        #expect(yaml.contains("kind: PersistentVolumeClaim") && value("accessModes") == "[\"ReadWriteMany\"]")
        #expect(value("claimName") == "maptrip-data" && yaml.contains("name: maptrip-data")
                && value("mountPath") == "/data")

        let sbatch = try String(contentsOf: examples.appendingPathComponent("slurm/render-array.sbatch"), encoding: .utf8)
        #expect(sbatch.hasPrefix("#!/bin/bash") && sbatch.contains("#SBATCH --array="))
        #expect(sbatch.contains("batch \"$scenes\" -o \"$out\" --shard auto") && sbatch.contains("--merge"))
    }

    /// The environment of a job array's task: this process's, without any scheduler's variables.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SLURM_") && $0.key != "JOB_COMPLETION_INDEX" }
        env.merge(extra) { $1 }
        return env
    }

    static func run(_ arguments: [String], in dir: URL, environment: [String: String]) throws -> CLIResult {
        let p = try CLIProcess(arguments, in: dir)
        p.process.environment = Self.environment(environment)
        try p.start()
        return try p.wait(timeout: 180)
    }

    @Test func twoShardsMergedEqualOneBatch() throws {
        try Trip.withDirectory("shard-e2e") { dir in
            try BatchTests.write(BatchTests.scene("Alpha"), "scenes/a.json", in: dir)
            try BatchTests.write(BatchTests.scene("Beta", dwell: 2), "scenes/trips/b.json", in: dir)
            try BatchTests.write(BatchTests.scene("Gamma", dwell: 0.5), "scenes/c.json", in: dir)
            let whole = try CLIProcess.run(["batch", "scenes", "-o", "whole", "--json"], in: dir, timeout: 180)
            #expect(whole.status == 0, "\(whole)")

            // Shard 0 as a Kubernetes Indexed Job's pod, shard 1 as a Slurm array's task (--array=3-4).
            let k8s = try Self.run(["batch", "scenes", "-o", "clips", "--json", "--shard", "auto", "--shards", "2"],
                                   in: dir, environment: ["JOB_COMPLETION_INDEX": "0"])
            #expect(k8s.status == 0, "\(k8s)")
            let clips = dir.appendingPathComponent("clips")
            #expect(BatchTests.tree(clips).contains("manifest.0.json") && !BatchTests.tree(clips).contains("manifest.json"))
            let slurm = try Self.run(["batch", "scenes", "-o", "clips", "--json", "--shard", "auto"], in: dir,
                                     environment: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "3",
                                                   "SLURM_ARRAY_TASK_COUNT": "2"])
            #expect(slurm.status == 0, "\(slurm)")
            // No scene done twice: each rendered by exactly one shard, and by cost (b, the longest, alone).
            let done0 = try BatchTests.events(k8s).filter { $0.event == "done" }.compactMap(\.scene)
            let done1 = try BatchTests.events(slurm).filter { $0.event == "done" }.compactMap(\.scene)
            #expect((done0 + done1).sorted() == ["a.json", "c.json", "trips/b.json"], "\(done0) \(done1)")
            #expect(done0 == ["trips/b.json"] && done1.sorted() == ["a.json", "c.json"], "\(done0) \(done1)")
            #expect(!BatchTests.tree(clips).contains("index.html"))

            // Merge: the same manifest as the one-shard batch (scenes, outputs, frames), and the gallery.
            let merge = try CLIProcess.run(["batch", "--merge", "clips/"], in: dir)
            #expect(merge.status == 0 && merge.stdout.contains("3 scenes, 0 failed (clips/manifest.json, clips/index.html)"),
                    "\(merge)")
            let merged = try BatchTests.manifest(clips), one = try BatchTests.manifest(dir.appendingPathComponent("whole"))
            #expect(merged.scenes.map(\.scene) == one.scenes.map(\.scene))
            #expect(merged.scenes.map(\.output) == one.scenes.map(\.output))
            #expect(merged.scenes.map(\.frames) == one.scenes.map(\.frames) && merged.scenes.map(\.frames) == [84, 72, 108])
            #expect(merged.scenes.allSatisfy { $0.status == "rendered" })
            #expect(BatchTests.tree(clips).filter { $0.hasSuffix(".mp4") }
                    == BatchTests.tree(dir.appendingPathComponent("whole")).filter { $0.hasSuffix(".mp4") })
            for e in merged.scenes {
                let info = try MediaInfo(path: clips.appendingPathComponent(e.output).path)
                #expect(info.videoStreams.first?.frameCount == e.frames, "\(e.output)")
            }
            #expect(FileManager.default.fileExists(atPath: clips.appendingPathComponent("index.html").path))

            // Errors: one line each.
            let noEnv = try Self.run(["batch", "scenes", "-o", "clips", "--shard", "auto"], in: dir, environment: [:])
            #expect(noEnv.status != 0 && noEnv.stderrLines.count == 1 && noEnv.stderr.contains("neither a Slurm job array"),
                    "\(noEnv)")
            let again = try CLIProcess.run(["batch", "--merge", "clips", "-o", "x"], in: dir)
            #expect(again.status != 0 && again.stderr.contains("--merge takes only the folder"), "\(again)")
        }
    }
}
