import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Rsvg

/// Round-capped, round-joined solid lines drawn straight into an image surface's pixels by maptrip's
/// own stroker (`Kernels.strokeRound`, RasterKernels): a route's strokes on every moving frame were
/// most of the Cairo work of a frame, Cairo's scan converter taking fifteen sub-rows per row; the
/// map's borders and provinces too, their dashes cut into pieces ahead (`Dashes`, `capInset`), and a
/// route's dashes (`Dashes.roundCapped`). Used through a `PixelTarget`; anywhere else (a recording, a
/// scaled poster) Cairo strokes.
enum RoundStroke {
    /// How far to cut a piece short at each end for it to ink what Cairo's stroke of the whole stretch
    /// inks, with flat caps or round ones (Cairo's dashes, drawn as pieces: `Dashes`). Along a piece the
    /// stroker inks a band 2r wide (r: half the width), as Cairo does; past an end, where a pixel's
    /// cover at distance p from the end point is c(p) = min(p + 1/2, r) - max(p - 1/2, -r), it inks
    /// E = pi * integral of c(p) p dp over the half disc, against nothing for a flat cap and pi r^2 / 2
    /// for a round one. Cut by (E - cap) / 2r at each end, a dash inks what Cairo's does: about r for
    /// a 1.1 px border (half its width: its dashes also reach as far), 0.44 for a 0.6 px province
    /// line, whose ends the stroker's cover overstates most, 0.06 for a round-capped 2.2 px border.
    static func capInset(width: Double, flatCaps: Bool) -> Double {
        let r = width / 2
        guard r > 0, r.isFinite else { return 0 }
        // c(p) is min(2r, 1) out to |r - 1/2|, then falls as r + 1/2 - p to 0 at r + 1/2.
        let a = abs(r - 0.5), b = r + 0.5
        let ink = Double.pi * (min(2 * r, 1) * a * a / 2 + b * (b * b - a * a) / 2 - (b * b * b - a * a * a) / 3)
        let cap = flatCaps ? 0 : Double.pi * r * r / 2
        return max(0, (ink - cap) / (2 * r))
    }
}
