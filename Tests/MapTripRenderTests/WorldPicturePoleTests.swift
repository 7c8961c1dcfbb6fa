import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import Testing
@testable import MapTripRender

/// A world picture on the globe at its poles, beyond the Web Mercator tiles' edge at 85.05 degrees:
/// the picture's own colour there (the satellite scene's Antarctica showed a dark spot of the
/// theme's sea at the south pole).
@Suite("World picture at the poles")
struct WorldPicturePoleTests {
    /// An equirectangular picture 512 x 256: blue sea, a white south cap below 70S, a grey-green north
    /// cap above 80N.
    static func picture() throws -> WorldPicture {
        let image = try ImageSurface(width: 512, height: 256)
        try image.withContext { cr in
            cr.setSource(red: 0.05, green: 0.1, blue: 0.4)
            cr.paint()
            cr.rectangle(0, (90.0 + 70) / 180 * 256, 512, 256)
            cr.setSource(red: 0.95, green: 0.95, blue: 0.97)
            cr.fill()
            cr.rectangle(0, 0, 512, 10.0 / 180 * 256)
            cr.setSource(red: 0.5, green: 0.6, blue: 0.5)
            cr.fill()
        }
        image.flush()
        return WorldPicture(image: image, credit: "test")
    }

    @Test(arguments: [-90.0, -87, 90, 88])
    func thePoleShowsThePicturesColour(lat: Double) throws {
        let picture = try Self.picture()
        let map = PictureBaseMap(picture: picture, over: TransparentBaseMap(), style: .satellite)
        let v = Viewport(camera: Camera(center: LonLat(lon: 20, lat: lat), zoom: 3), width: 320, height: 180, projection: .globe)
        try map.prepare(for: [v])
        let s = try ImageSurface(width: 320, height: 180)
        try s.withContext { try map.draw(v, in: $0) }
        s.flush()
        let want = lat < 0 ? (242, 242, 247) : (128, 153, 128)
        // The frame's centre, the pole or near it, beyond the tiles' edge, and a ring around it.
        for (x, y) in [(160, 90), (150, 90), (170, 90), (160, 84), (160, 96)] {
            let p = s.pixel(x: x, y: y)
            #expect(abs(Int(p.r) - want.0) <= 4 && abs(Int(p.g) - want.1) <= 4 && abs(Int(p.b) - want.2) <= 4,
                    "\(lat): (\(x), \(y)) is r\(p.r) g\(p.g) b\(p.b), want \(want)")
        }
    }

    @Test func theCapColourIsTheMeanBeyondTheEdge() throws {
        let picture = try Self.picture()
        let south = picture.capColor(south: true), north = picture.capColor(south: false)
        #expect(abs(south.red - 0.95) < 0.01 && abs(south.blue - 0.97) < 0.01)
        #expect(abs(north.green - 0.6) < 0.01 && abs(north.red - 0.5) < 0.01)
    }
}
