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
}
