import Cairo
import Pango
import Testing

/// Pango's font features on a layout (the distance counter's tabular figures, issue #56): with
/// "tnum" every digit is as wide as another ("1111" as wide as "0000"); with "pnum" (proportional
/// figures) ones are narrower, so the feature reaches the font.
@Suite("Font features")
struct FontFeaturesTests {
    @Test(arguments: ["Noto Sans", "Noto Serif"])
    func tabularFiguresAreAllOneWidth(family: String) throws {
        let surface = try ImageSurface(width: 8, height: 8)
        func width(_ text: String, _ features: String) throws -> Double {
            try surface.withContext { cr in
                let layout = try Layout(context: cr)
                let font = try FontDescription("\(family) Bold")
                font.setAbsoluteSize(40)
                layout.setFont(font)
                layout.setFontFeatures(features)
                layout.text = text
                return layout.size.width
            }
        }
        let ones = try width("1111", "tnum"), zeros = try width("0000", "tnum")
        #expect(abs(ones - zeros) < 0.01, "\(family): 1111 is \(ones) wide, 0000 \(zeros)")
        let proportional = try width("1111", "pnum")
        #expect(proportional < ones - 1, "\(family): pnum 1111 \(proportional), tnum \(ones)")
    }
}
