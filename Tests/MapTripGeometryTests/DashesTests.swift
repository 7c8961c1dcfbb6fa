import Foundation
import MapTripGeometry
import Testing
import TestSupport

/// A path's dashes worked out ahead for a round-capped stroker (`Dashes`): where each piece starts
/// and ends along the path, as Cairo dashes it.
@Suite struct DashesTests {
    static func path(_ subpaths: [[(Double, Double)]], closed: Bool = false) -> PixelPath {
        var p = PixelPath()
        p.closed = closed
        for s in subpaths {
            p.starts.append(p.xs.count)
            for (x, y) in s {
                p.xs.append(x)
                p.ys.append(y)
            }
        }
        return p
    }

    /// The pieces as lists of points.
    static func pieces(_ p: PixelPath, _ pattern: [Double], inset: Double) -> [[(x: Double, y: Double)]] {
        var xy: [Double] = [], counts: [Int32] = []
        Dashes.pieces(of: p, pattern: pattern, inset: inset, into: &xy, counts: &counts)
        #expect(xy.count == 2 * Int(counts.reduce(0, +)))
        var out: [[(x: Double, y: Double)]] = [], i = 0
        for c in counts {
            out.append((0..<Int(c)).map { k in (x: xy[2 * (i + k)], y: xy[2 * (i + k) + 1]) })
            i += Int(c)
        }
        return out
    }

    static func close(_ a: (x: Double, y: Double), _ b: (Double, Double)) -> Bool {
        abs(a.x - b.0) < 1e-9 && abs(a.y - b.1) < 1e-9
    }

    @Test func aStraightLineIsCutIntoItsDashesWithTheirCapsInside() {
        // 20 px along x, dashes of 4 on, 2.5 off: on at [0,4], [6.5,10.5], [13,17], [19.5,20].
        let p = Self.path([[(0, 0), (20, 0)]])
        let cut = Self.pieces(p, [4, 2.5], inset: 0.5)
        #expect(cut.count == 4)
        let expected: [(Double, Double)] = [(0.5, 3.5), (7, 10), (13.5, 16.5)]
        for (piece, (a, b)) in zip(cut, expected) {
            #expect(piece.count == 2)
            #expect(Self.close(piece[0], (a, 0)) && Self.close(piece[1], (b, 0)), "\(piece)")
        }
        // The last dash is half a pixel long, cut off by the path's end: a dot at its middle.
        #expect(Self.close(cut[3][0], (19.75, 0)) && Self.close(cut[3][1], (19.75, 0)))
        // Without the inset: Cairo's round-capped dashes, ends as they are.
        let round = Self.pieces(p, [4, 2.5], inset: 0)
        #expect(Self.close(round[1][0], (6.5, 0)) && Self.close(round[1][1], (10.5, 0)))
    }

    @Test func aDashTurnsCornersWithThePath() {
        // An L: 3 px along x then down; a 6 px dash keeps the corner as a point of its own.
        let p = Self.path([[(0, 0), (3, 0), (3, 10)]])
        let cut = Self.pieces(p, [6, 2], inset: 0)
        #expect(cut.count == 2)
        #expect(cut[0].count == 3)
        #expect(Self.close(cut[0][0], (0, 0)) && Self.close(cut[0][1], (3, 0)) && Self.close(cut[0][2], (3, 3)))
        #expect(Self.close(cut[1][0], (3, 5)) && Self.close(cut[1][1], (3, 10)))
    }

    @Test func thePatternStartsAgainOnEachSubpathAndAnOddOneIsReadTwice() {
        let p = Self.path([[(0, 0), (10, 0)], [(0, 5), (10, 5)]])
        // [3] is 3 on, 3 off: on at [0,3], [6,9] on each line.
        let cut = Self.pieces(p, [3], inset: 0)
        #expect(cut.count == 4)
        #expect(Self.close(cut[2][0], (0, 5)) && Self.close(cut[2][1], (3, 5)))
        #expect(Self.close(cut[3][0], (6, 5)) && Self.close(cut[3][1], (9, 5)))
    }

    @Test func noPatternGivesEachSubpathWholeAndAClosedOneEndsWhereItBegan() {
        let square = Self.path([[(0, 0), (10, 0), (10, 10), (0, 10)]], closed: true)
        let whole = Self.pieces(square, [], inset: 1)
        #expect(whole.count == 1)
        #expect(whole[0].count == 5)
        #expect(Self.close(whole[0][0], (1, 0)) && Self.close(whole[0][4], (0, 1)))
        // What is not a pattern draws the line solid.
        #expect(Self.pieces(square, [4, -1], inset: 1).count == 1)
        #expect(Self.pieces(square, [0, 0], inset: 1).count == 1)
        // Zero-length dashes: nothing with flat caps (an inset), dots with round ones.
        let line = Self.path([[(0, 0), (10, 0)]])
        #expect(Self.pieces(square, [0, 4], inset: 1).isEmpty)
        let flat = Self.pieces(line, [0, 2, 3, 1], inset: 0.5)
        #expect(flat.count == 2)
        #expect(Self.close(flat[0][0], (2.5, 0)) && Self.close(flat[0][1], (4.5, 0)))
        let round = Self.pieces(line, [0, 2, 3, 1], inset: 0)
        #expect(round.count == 4)
        #expect(Self.close(round[2][0], (6, 0)) && Self.close(round[2][1], (6, 0)))
        // A single point gives nothing.
        #expect(Self.pieces(Self.path([[(4, 4)]]), [2, 2], inset: 0).isEmpty)
    }

    @Test func piecesWhollyOutsideTheBoxAreLeftOutAndTheRestKeepTheirPhase() {
        // A line from x = -100 to 100; dashes of 4 on, 2 off; the box holds x in [10, 30] only.
        let p = Self.path([[(-100, 0), (100, 0)]])
        let all = Self.pieces(p, [4, 2], inset: 0)
        var xy: [Double] = [], counts: [Int32] = []
        Dashes.pieces(of: p, pattern: [4, 2], inset: 0, within: Box(minX: 10, minY: -1, maxX: 30, maxY: 1),
                      into: &xy, counts: &counts)
        // The same pieces as without the box, those that reach into it: [8,12] ... [32,36] shifted by -100.
        let kept = all.filter { piece in piece.contains { $0.x >= 10 && $0.x <= 30 } || (piece[0].x < 10 && piece.last!.x > 30) }
        #expect(counts.count == kept.count)
        #expect(xy.count == 2 * kept.reduce(0) { $0 + $1.count })
        #expect(abs(xy[0] - kept[0][0].x) < 1e-9)
    }

    @Test func theDashesCoverWhatThePatternSaysAlongAWiggle() {
        // A long zigzag: the pieces' lengths plus their caps add up to the pattern's share of "on".
        let points = (0...400).map { i in (Double(i) * 1.7, Double(i % 7) * 0.9) }
        let p = Self.path([points])
        var length = 0.0
        for i in 1..<points.count {
            let dx = points[i].0 - points[i - 1].0, dy = points[i].1 - points[i - 1].1
            length += (dx * dx + dy * dy).squareRoot()
        }
        let inset = 0.55
        let cut = Self.pieces(p, [4, 2.5], inset: inset)
        var drawn = 0.0
        for piece in cut {
            for k in 1..<piece.count {
                let dx = piece[k].x - piece[k - 1].x, dy = piece[k].y - piece[k - 1].y
                drawn += (dx * dx + dy * dy).squareRoot()
            }
        }
        let covered = drawn + Double(cut.count) * 2 * inset
        #expect(abs(covered - length * 4 / 6.5) < 4 + 2 * inset, "covered \(covered) of \(length)")
        #expect(abs(Double(cut.count) - (length / 6.5).rounded(.up)) <= 1)
    }

    /// The ends of the dashes of a line clipped and dashed by its distances along the whole line
    /// (`PixelPath.tracksAlong`), back in the unit world: the ends away from the clip's edges.
    static func dashEnds(_ g: IndexedGeometry, scale: Double, offsetX: Double, offsetY: Double, clip: Box,
                         pattern: [Double], thinning: Double) -> [(Double, Double)] {
        var clipper = PathClipper(tolerance: thinning)
        var path = PixelPath()
        path.tracksAlong = true
        clipper.append(g, transform: PixelTransform(scale: scale, offsetX: offsetX, offsetY: offsetY), clip: clip, to: &path)
        #expect(path.hasAlong)
        var xy: [Double] = [], counts: [Int32] = []
        Dashes.pieces(of: path, pattern: pattern, inset: 0, into: &xy, counts: &counts)
        var ends: [(Double, Double)] = [], i = 0
        for c in counts {
            for k in [i, i + Int(c) - 1] {
                let x = xy[2 * k], y = xy[2 * k + 1]
                if x > clip.minX + 1e-6, x < clip.maxX - 1e-6, y > clip.minY + 1e-6, y < clip.maxY - 1e-6 {
                    ends.append(((x - offsetX) / scale, (y - offsetY) / scale))
                }
            }
            i += Int(c)
        }
        return ends
    }

    @Test func aClippedLineKeepsTheWholeLinesDashesAtAnyClipAndScale() {
        // A wiggly line across the unit world (seeded), its dashes worked out whole, then in frames
        // and tiles that cut it elsewhere, and at twice the scale with the pattern twice as long (a
        // tile of a larger level): every dash end inside a clip is one of the whole line's; where the
        // clipper thins the lines (drops points closer than half a pixel), within that half pixel.
        var rng = SplitMix64(seed: 53)
        var xs: [Double] = [], ys: [Double] = []
        var x = 0.1, y = 0.5
        for _ in 0..<500 {
            xs.append(x); ys.append(y)
            x += Double.random(in: 0.0005...0.002, using: &rng)
            y = min(0.9, max(0.1, y + Double.random(in: -0.002...0.002, using: &rng)))
        }
        let g = IndexedGeometry(xs: xs, ys: ys, partStarts: [0], isPolygon: false)
        let world = 2048.0, pattern = [4.0, 2.5]
        let everything = Box(minX: -10, minY: -10, maxX: world + 10, maxY: world + 10)
        let whole = Self.dashEnds(g, scale: world, offsetX: 0, offsetY: 0, clip: everything, pattern: pattern, thinning: 0)
        #expect(whole.count > 200)
        func distance(_ p: (Double, Double)) -> Double {
            whole.map { ((($0.0 - p.0) * ($0.0 - p.0) + ($0.1 - p.1) * ($0.1 - p.1)).squareRoot()) * world }.min() ?? 1e9
        }
        for k in 0..<12 {
            let factor = k % 2 == 0 ? 1.0 : 2.0
            // A clip about a random vertex of the line.
            let w = Double.random(in: 100...400, using: &rng), h = Double.random(in: 100...400, using: &rng)
            let r = Int.random(in: 0..<xs.count, using: &rng)
            let ox = w / 2 - xs[r] * world * factor, oy = h / 2 - ys[r] * world * factor
            let clip = Box(minX: 0, minY: 0, maxX: w, maxY: h)
            let thinning = k < 6 ? 0 : 0.5
            let ends = Self.dashEnds(g, scale: world * factor, offsetX: ox, offsetY: oy, clip: clip,
                                     pattern: pattern.map { $0 * factor }, thinning: thinning)
            #expect(!ends.isEmpty)
            let off = ends.map(distance).filter { $0 > (thinning == 0 ? 1e-6 : thinning) }
            #expect(off.isEmpty, "clip \(k) at \(factor)x: ends this far from the whole line's (px): \(off)")
        }
    }

    @Test func roundCappedDashesKeepTheLengthsAndTheGapsAsGiven() throws {
        // [10, 6] 4 wide: dashes of 6 whose caps reach 2 beyond each end (10 of ink), gaps of 10 between
        // the caps' ends (6 of ink); the first dash starts 2 into the line, as far as its cap reaches.
        let (pattern, offset) = try #require(Dashes.roundCapped([10, 6], width: 4))
        #expect(pattern == [6, 10] && offset == 14)
        let cut = Self.pieces(Self.path([[(0, 0), (40, 0)]]), pattern, offset: offset)
        #expect(cut.count == 3)
        for (piece, a) in zip(cut, [2.0, 18, 34]) {
            #expect(Self.close(piece[0], (a, 0)) && Self.close(piece[1], (min(a + 6, 40), 0)), "\(piece)")
        }
        // A dash no longer than the width is a dot at its middle; an odd pattern is read twice.
        let dots = try #require(Dashes.roundCapped([3, 5, 12, 4], width: 4))
        #expect(dots.pattern == [0, 8.5, 8, 7.5] && dots.offset == 22.5)
        #expect(try #require(Dashes.roundCapped([3], width: 2)).pattern == [1, 5])
        #expect(Dashes.roundCapped([], width: 4) == nil && Dashes.roundCapped([2, -1], width: 4) == nil)
        let dotted = Self.pieces(Self.path([[(0, 0), (30, 0)]]), dots.pattern, offset: dots.offset)
        #expect(dotted.count == 3)
        #expect(Self.close(dotted[0][0], (1.5, 0)) && Self.close(dotted[0][1], (1.5, 0)))
        #expect(Self.close(dotted[1][0], (10, 0)) && Self.close(dotted[1][1], (18, 0)))
        #expect(Self.close(dotted[2][0], (25.5, 0)) && Self.close(dotted[2][1], (25.5, 0)))
    }

    /// The pieces (round caps, no inset) of `p` under `pattern` from `offset`, as lists of points.
    static func pieces(_ p: PixelPath, _ pattern: [Double], offset: Double) -> [[(x: Double, y: Double)]] {
        var xy: [Double] = [], counts: [Int32] = []
        Dashes.pieces(of: p, pattern: pattern, offset: offset, inset: 0, into: &xy, counts: &counts)
        var out: [[(x: Double, y: Double)]] = [], i = 0
        for c in counts {
            out.append((0..<Int(c)).map { k in (x: xy[2 * (i + k)], y: xy[2 * (i + k) + 1]) })
            i += Int(c)
        }
        return out
    }

    @Test func roundCappedDashesOfRandomLinesStartWhereThePatternSaysAndAddUp() throws {
        // Seeded random polylines (sharp turns, short and long segments), patterns and widths: each
        // piece is the stretch of the line the pattern puts it on, counted from the line's start across
        // its vertices, its corners kept (its length along its points is the stretch's); together they
        // are the pattern's share of the line.
        var rng = SplitMix64(seed: 0xDA5E5)
        var pieces = 0, corners = 0, dots = 0
        for _ in 0..<60 {
            var line: [(x: Double, y: Double)] = [(rng.unit() * 100, rng.unit() * 100)]
            for _ in 0..<(1 + Int(rng.next() % 40)) {
                let angle = rng.unit() * 2 * .pi, step = rng.unit() < 0.2 ? rng.unit() * 0.5 : rng.unit() * 30
                line.append((line.last!.x + step * cos(angle), line.last!.y + step * sin(angle)))
            }
            let given = (0..<(rng.unit() < 0.5 ? 2 : 4)).map { _ in 0.5 + rng.unit() * 15 }
            let width = 0.5 + rng.unit() * 8
            let (pattern, offset) = try #require(Dashes.roundCapped(given, width: width))
            // Distances along the line at its points, and the point at a distance.
            var at = [0.0]
            for i in 1..<line.count { at.append(at[i - 1] + hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y)) }
            let length = at.last!
            func point(_ d: Double) -> (Double, Double) {
                var i = 1
                while i < line.count - 1 && at[i] < d { i += 1 }
                let span = at[i] - at[i - 1], t = span > 0 ? (d - at[i - 1]) / span : 0
                return (line[i - 1].x + t * (line[i].x - line[i - 1].x), line[i - 1].y + t * (line[i].y - line[i - 1].y))
            }
            // Where the given dashes lie, each cut by half the width at both ends (a dot at its middle).
            var expected: [(from: Double, to: Double)] = [], d = 0.0, k = 0
            while d < length {
                let dash = given[k % given.count], gap = given[(k + 1) % given.count]
                let cut = min(dash, width) / 2
                if d + cut < length { expected.append((d + cut, min(d + dash - cut, length))) }
                d += dash + gap
                k += 2
            }
            let cut = Self.pieces(Self.path([line.map { ($0.x, $0.y) }]), pattern, offset: offset)
            #expect(cut.count == expected.count, "\(given) \(width): \(cut.count) pieces, \(expected.count) expected")
            var drawn = 0.0, share = 0.0
            for (piece, e) in zip(cut, expected) {
                let piecewise = zip(piece, piece.dropFirst()).reduce(0.0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
                #expect(Self.close(piece[0], point(e.from)), "\(given) \(width): a piece starts at \(piece[0]), not \(point(e.from))")
                #expect(Self.close(piece.last!, point(e.to)))
                #expect(abs(piecewise - (e.to - e.from)) < 1e-9)
                drawn += piecewise
                share += e.to - e.from
                corners += piece.count - 2
                if e.to - e.from < 1e-9 { dots += 1 }
            }
            pieces += cut.count
            // With their caps, the pieces cover what the flat dashes cover (but where the line ends).
            #expect(abs(drawn - share) < 1e-6)
        }
        #expect(pieces > 500 && corners > 100 && dots > 20, "\(pieces) pieces, \(corners) corners kept, \(dots) dots")
    }
}
