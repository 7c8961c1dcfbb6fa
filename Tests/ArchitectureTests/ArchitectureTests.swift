import Foundation
import Testing

/// The modules' dependency graph: Package.swift's targets may use only what the README's module table
/// says each module uses, every module is in the table, and the table's graph runs one way (no cycle).
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A target of Package.swift: its kind (`target`, `systemLibrary`...), name, path and dependencies
    /// within the package (products of other packages left out).
    struct Target: Equatable {
        var kind: String
        var name: String
        var path: String?
        var dependencies: [String]
    }

    /// The targets declared in a Package.swift's text (`.target(`, `.executableTarget(`, `.testTarget(`,
    /// `.systemLibrary(`), read with their parentheses matched, strings and comments skipped.
    static func targets(inPackage text: String) -> [Target] {
        let chars = Array(text)
        var out: [Target] = []
        var i = 0
        func strings(_ s: String) -> [String] {
            s.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        let kinds = ["target", "executableTarget", "testTarget", "systemLibrary"]
        while i < chars.count {
            guard chars[i] == "." else { i += 1; continue }
            let rest = String(chars[(i + 1)..<min(chars.count, i + 40)])
            guard let kind = kinds.first(where: { rest.hasPrefix($0 + "(") }) else { i += 1; continue }
            let open = i + 1 + kind.count
            let end = Self.closing(chars, from: open)
            let body = String(chars[(open + 1)..<(end - 1)])
            let name = body.range(of: #"name:\s*"([^"]+)""#, options: .regularExpression).map { strings(String(body[$0]))[0] }
            let path = body.range(of: #"path:\s*"([^"]+)""#, options: .regularExpression).map { strings(String(body[$0]))[0] }
            var dependencies: [String] = []
            if let d = body.range(of: "dependencies:") {
                let b = Array(body[d.upperBound...])
                if let s = b.firstIndex(of: "[") {
                    // The list, with `.product(...)` (another package's) taken out.
                    var list = String(b[s..<Self.closing(b, from: s)])
                    while let p = list.range(of: ".product(") {
                        let inner = Array(list[p.lowerBound...])
                        let e = Self.closing(inner, from: inner.firstIndex(of: "(")!)
                        list.removeSubrange(p.lowerBound..<list.index(p.lowerBound, offsetBy: e))
                    }
                    dependencies = strings(list)
                }
            }
            if let name { out.append(Target(kind: kind, name: name, path: path, dependencies: dependencies)) }
            i = end
        }
        return out
    }

    /// The index just past the bracket that closes the one at `start` (a "(" or a "["), strings and
    /// comments skipped; the end when it is never closed.
    static func closing(_ chars: [Character], from start: Int) -> Int {
        let (open, shut): (Character, Character) = chars[start] == "[" ? ("[", "]") : ("(", ")")
        var depth = 0, k = start
        while k < chars.count {
            let c = chars[k]
            if c == "\"" {
                k += 1
                while k < chars.count && chars[k] != "\"" { k += chars[k] == "\\" ? 2 : 1 }
            } else if c == "/" && k + 1 < chars.count && chars[k + 1] == "/" {
                while k < chars.count && chars[k] != "\n" { k += 1 }
            } else if c == open {
                depth += 1
            } else if c == shut {
                depth -= 1
                if depth == 0 { return k + 1 }
            }
            k += 1
        }
        return chars.count
    }

    /// The README's module table: each row's module and the modules its last column says it uses.
    static func graph(inReadme text: String) -> [String: [String]] {
        guard let header = text.range(of: "| module | what | uses") else { return [:] }
        var graph: [String: [String]] = [:]
        for line in text[header.lowerBound...].split(separator: "\n").dropFirst(2) {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            func names(_ cell: String) -> [String] {
                cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            }
            for module in names(cells[1]) { graph[module] = names(cells[cells.count - 2]) }
        }
        return graph
    }

    /// What is wrong with the package against the table: a target missing from the table, an edge the
    /// table does not draw, a row for no target, a cycle in the table.
    static func violations(package: String, readme: String) -> [String] {
        let targets = targets(inPackage: package)
        let graph = graph(inReadme: readme)
        var problems: [String] = []
        let libraries = Set(targets.filter { $0.kind == "systemLibrary" }.map(\.name))
        let modules = targets.filter { $0.kind != "systemLibrary" && $0.kind != "testTarget" && !($0.path ?? "").hasPrefix("Tests/") }
        for t in modules {
            guard let allowed = graph[t.name] else {
                problems.append("\(t.name) is not in the README's module table")
                continue
            }
            for d in t.dependencies where !allowed.contains(d) {
                problems.append("\(t.name) -> \(d) is not an edge of the README's module table")
            }
        }
        let names = Set(targets.map(\.name))
        for module in graph.keys.sorted() where !names.contains(module) {
            problems.append("the module table has \(module), which Package.swift does not build")
        }
        for (module, uses) in graph.sorted(by: { $0.key < $1.key }) {
            for u in uses where graph[u] == nil && !libraries.contains(u) {
                problems.append("\(module) uses \(u), which is neither in the table nor a system library")
            }
        }
        // One way: a depth-first walk finds no module on its own path.
        var state: [String: Int] = [:]  // 1 on the path, 2 done
        func visit(_ m: String, _ path: [String]) {
            if state[m] == 2 { return }
            if state[m] == 1 {
                problems.append("the module table has a cycle: " + (path + [m]).joined(separator: " -> "))
                return
            }
            state[m] = 1
            for u in graph[m] ?? [] { visit(u, path + [m]) }
            state[m] = 2
        }
        for m in graph.keys.sorted() { visit(m, []) }
        return problems
    }

    static func read(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    /// The modules a target's Swift files import (`import M`, `@testable import M`...), from its folder
    /// (its path, or Sources/ or Tests/ and its name).
    static func imports(of target: Target) throws -> Set<String> {
        let folder = root.appendingPathComponent(target.path ?? ((target.kind == "testTarget" ? "Tests/" : "Sources/") + target.name))
        var modules: Set<String> = []
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && !["public", "internal", "package"].contains($0) }
                if words.count >= 2, words[0] == "import" { modules.insert(String(words[1])) }
            }
        }
        return modules
    }

    /// Where a module (test targets aside) imports a target of the package that it does not list as a
    /// dependency: SwiftPM lets a module import any C module below it, so the edges alone do not keep
    /// CRasterKernels behind RasterKernels.
    static func undeclaredImports(_ targets: [Target]) throws -> [String] {
        let names = Set(targets.map(\.name))
        var problems: [String] = []
        for t in targets where t.kind != "systemLibrary" && t.kind != "testTarget" && !(t.path ?? "").hasPrefix("Tests/") {
            for m in try imports(of: t).sorted() where names.contains(m) && m != t.name && !t.dependencies.contains(m) {
                problems.append("\(t.name) imports \(m), which it does not list")
            }
        }
        return problems
    }

    @Test func thePackageFollowsTheModuleTable() throws {
        let package = try Self.read("Package.swift"), readme = try Self.read("README.md")
        let targets = Self.targets(inPackage: package)
        // The reader sees the package: the executable, the scene module and the tests among them.
        #expect(targets.contains { $0.name == "maptrip" && $0.kind == "executableTarget" && $0.dependencies.contains("MapTripRecord") })
        #expect(targets.contains { $0.name == "MapTripScene" && $0.dependencies == ["MapTripGeometry", "MapTripSupport"] })
        #expect(targets.filter { $0.kind == "testTarget" }.count >= 8)
        #expect(Self.graph(inReadme: readme).count >= 20)
        let problems = Self.violations(package: package, readme: readme)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Modules import only what they list; the C kernels only their wrapper, RasterKernels, does.
    @Test func modulesImportOnlyWhatTheyList() throws {
        let targets = Self.targets(inPackage: try Self.read("Package.swift"))
        let problems = try Self.undeclaredImports(targets)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        let modules = targets.filter { $0.kind != "systemLibrary" }
        #expect(try modules.filter { try Self.imports(of: $0).contains("CRasterKernels") }.map(\.name) == ["RasterKernels"])
        // Found where it is not listed.
        let render = try #require(targets.first { $0.name == "MapTripRender" })
        var wrong = render
        wrong.dependencies.removeAll { $0 == "Cairo" }
        #expect(try Self.undeclaredImports([wrong] + targets.filter { $0.name != "MapTripRender" })
            == ["MapTripRender imports Cairo, which it does not list"])
    }

    @Test func anEdgeAgainstTheGraphACycleOrAModuleLeftOutIsFound() throws {
        let package = try Self.read("Package.swift"), readme = try Self.read("README.md")
        // Geometry made to use Scene: an edge the table does not draw.
        let upward = package.replacingOccurrences(of: #".target(name: "MapTripGeometry", dependencies: ["MapTripSupport"])"#,
                                                  with: #".target(name: "MapTripGeometry", dependencies: ["MapTripSupport", "MapTripScene"])"#)
        #expect(upward != package)
        #expect(Self.violations(package: upward, readme: readme) == ["MapTripGeometry -> MapTripScene is not an edge of the README's module table"])
        // The table made to draw Support -> Scene: a cycle (Scene uses Support).
        let withCycle = readme.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("| `MapTripSupport` |") && line.hasSuffix("| - |")
                ? line.dropLast("| - |".count) + "| `MapTripScene` |" : line
        }.joined(separator: "\n")
        #expect(withCycle != readme)
        #expect(Self.violations(package: package, readme: withCycle).contains { $0.hasPrefix("the module table has a cycle: ") })
        // A new module no row describes.
        let extra = package.replacingOccurrences(of: #"        .target(name: "MapTripSupport"),"#,
                                                 with: "        .target(name: \"MapTripSupport\"),\n        .target(name: \"MapTripExtra\", dependencies: [\"MapTripSupport\"]),")
        #expect(Self.violations(package: extra, readme: readme) == ["MapTripExtra is not in the README's module table"])
    }
}
