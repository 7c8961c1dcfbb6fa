import Foundation
import Testing
import MapTripScene
@testable import MapTripStyle

@Suite struct ExpressionTests {
    @Test func placeholder() throws {
        #expect(JSNumber.string(1e21) == "1e+21")
    }
}
