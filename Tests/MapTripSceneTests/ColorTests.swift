import Testing
@testable import MapTripScene

struct ColorTests {
    @Test func hex() {
        #expect(Color(hex: "#ff8000") == Color(red: 1, green: 128.0 / 255, blue: 0))
        #expect(Color(hex: "#00000080")?.alpha == 128.0 / 255)
        #expect(Color(hex: "nope") == nil)
        #expect(Color(hex: "#e4572e")?.description == "#e4572e")
        #expect(Color(hex: "#e4572e80")?.description == "#e4572e80")
    }

    @Test func mix() {
        let a = Color(red: 0, green: 0, blue: 0), b = Color(red: 1, green: 1, blue: 1, alpha: 0)
        #expect(a.mixed(with: b, 0) == a)
        #expect(a.mixed(with: b, 1) == b)
        #expect(a.mixed(with: b, 0.5) == Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 0.5))
    }
}
