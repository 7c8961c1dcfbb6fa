import Foundation
import MapTripSupport
import Testing
@testable import MapTripTracks

/// The offset from UTC a recording states: a FIT activity's local time less its timestamp (checked
/// against the activity messages decoded by an independent reader), or the first time written with an
/// offset in GPX, TCX and KML; none for times in UTC (`Z`).
@Suite struct TimeZoneTests {
    @Test(arguments: [("Activity.fit", -14_400), ("garmin-edge-820-bike.fit", -25_200), ("garmin-fenix-5-run.fit", -25_200),
                      ("2013-02-06-12-11-14.fit", nil)] as [(String, Int?)])
    func fitActivitiesGiveTheirLocalTimesOffset(_ name: String, _ offset: Int?) throws {
        let reading = try TrackFile.read(contentsOf: Fixtures.url("fit/" + name))
        #expect(reading.track.utcOffset == offset)
    }

    @Test func xmlTimesWithAnOffsetGiveIt() throws {
        func gpx(_ times: [String]) throws -> Int? {
            let points = times.enumerated().map { Fixtures.trkpt(60 + Double($0.offset) / 1000, 24, $0.element) }
            return try Fixtures.read(Fixtures.gpx("<trk><trkseg>" + points.joined() + "</trkseg></trk>")).track.utcOffset
        }
        #expect(try gpx(["2024-05-01T09:30:00+02:00", "2024-05-01T09:31:00+02:00"]) == 7200)
        #expect(try gpx(["2024-05-01T09:30:00.5-0330", "2024-05-01T09:31:00-03:30"]) == -12_600)
        #expect(try gpx(["2024-05-01T09:30:00Z", "2024-05-01T09:31:00Z"]) == nil)
        #expect(try gpx(["2024-05-01T09:30:00+00:00"]) == 0)
        let tcx = """
            <?xml version="1.0"?><TrainingCenterDatabase><Activities><Activity><Lap><Track>
            <Trackpoint><Time>2024-05-01T09:30:00+05:30</Time><Position><LatitudeDegrees>12</LatitudeDegrees><LongitudeDegrees>77</LongitudeDegrees></Position></Trackpoint>
            <Trackpoint><Time>2024-05-01T09:31:00+05:30</Time><Position><LatitudeDegrees>12.001</LatitudeDegrees><LongitudeDegrees>77</LongitudeDegrees></Position></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """
        #expect(try Fixtures.read(tcx).track.utcOffset == 19_800)
        let kml = """
            <?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Placemark><gx:Track>
            <when>2024-05-01T09:30:00-07:00</when><when>2024-05-01T09:31:00-07:00</when>
            <gx:coord>-122 37 0</gx:coord><gx:coord>-122.001 37 0</gx:coord>
            </gx:Track></Placemark></kml>
            """
        #expect(try Fixtures.read(kml).track.utcOffset == -25_200)
    }
}
