import Foundation
import MapTripSupport
import Testing
@testable import MapTripTracks

/// Each format's structures read by hand-written files; the data checks' warnings; recognition by
/// content.
@Suite struct ReaderTests {
    @Test func formatsAreRecognisedByContentNotName() throws {
        let gpx = Fixtures.gpx("<trk><trkseg>" + Fixtures.trkpt(1, 2) + "</trkseg></trk>")
        for name in ["ride.txt", "ride.kml", "ride"] {
            #expect(try Fixtures.read(gpx, name: name).track.format == .gpx)
        }
        #expect(TrackFile.format(of: Data("\u{FEFF}  {\"type\":\"LineString\"}".utf8)) == .geoJSON)
        #expect(TrackFile.format(of: Data("<?xml version=\"1.0\"?><!-- a comment <x> --><!DOCTYPE kml><kml:kml>".utf8)) == .kml)
        #expect(TrackFile.format(of: Data("<TrainingCenterDatabase>".utf8)) == .tcx)
        #expect(TrackFile.format(of: try Data(contentsOf: Fixtures.url("written/simplekml.kmz"))) == .kmz)
        #expect(TrackFile.format(of: try Data(contentsOf: Fixtures.url("fit/Activity.fit"))) == .fit)
        #expect(TrackFile.format(of: Data("lat,lon\n1,2\n".utf8)) == nil)
    }

    @Test func gpx10WithRoutesWaypointsSpeedAndNoTrack() throws {
        let text = """
            <?xml version="1.0"?>
            <gpx version="1.0" creator="old"><name>Old route</name>
            <wpt lat="10" lon="20"><name>A</name><ele>5</ele></wpt>
            <rte><name>r</name><rtept lat="10" lon="20"><speed>3.5</speed></rtept><rtept lat="10.001" lon="20.001"/></rte>
            <rte><rtept lat="11" lon="21"/></rte>
            </gpx>
            """
        let track = try Fixtures.read(text).track
        #expect(track.name == "Old route")
        #expect(track.segments.map(\.count) == [2, 1])
        #expect(track.segments[0][0].speed == 3.5)
        #expect(track.waypoints == [Waypoint(name: "A", latitude: 10, longitude: 20, altitude: 5)])
    }

    @Test func gpxExtensionsAreReadOrIgnored() throws {
        let text = Fixtures.gpx("""
            <trk><name>t</name><trkseg><trkpt lat="1" lon="2"><ele>3</ele><time>2024-01-01T00:00:00.5+01:00</time>
            <extensions><ns3:TrackPointExtension><ns3:atemp>20</ns3:atemp><ns3:hr>150</ns3:hr><ns3:cad>90</ns3:cad></ns3:TrackPointExtension>
            <power>250</power><other><deep>x</deep></other></extensions></trkpt></trkseg></trk>
            """)
        let p = try #require(try Fixtures.read(text).track.points.first)
        #expect(p.heartRate == 150 && p.cadence == 90 && p.power == 250 && p.altitude == 3)
        #expect(p.time == Date(timeIntervalSince1970: 1_704_063_600.5))
    }

    @Test func tcxActivitiesAndCourses() throws {
        let activity = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Biking"><Id>2024-05-01T09:30:00Z</Id>
                <Lap StartTime="2024-05-01T09:30:00Z"><Track>
                  <Trackpoint><Time>2024-05-01T09:30:00Z</Time><Position><LatitudeDegrees>60.1</LatitudeDegrees><LongitudeDegrees>24.9</LongitudeDegrees></Position>
                    <AltitudeMeters>12.5</AltitudeMeters><HeartRateBpm><Value>120</Value></HeartRateBpm><Cadence>85</Cadence>
                    <Extensions><ns3:TPX><ns3:Speed>5.5</ns3:Speed><ns3:Watts>210</ns3:Watts></ns3:TPX></Extensions></Trackpoint>
                  <Trackpoint><Time>2024-05-01T09:30:01Z</Time><HeartRateBpm><Value>121</Value></HeartRateBpm></Trackpoint>
                  <Trackpoint><Time>2024-05-01T09:30:02Z</Time><Position><LatitudeDegrees>60.1001</LatitudeDegrees><LongitudeDegrees>24.9001</LongitudeDegrees></Position></Trackpoint>
                </Track></Lap>
                <Lap StartTime="2024-05-01T10:00:00Z"><Track>
                  <Trackpoint><Time>2024-05-01T10:00:00Z</Time><Position><LatitudeDegrees>60.2</LatitudeDegrees><LongitudeDegrees>25</LongitudeDegrees></Position></Trackpoint>
                </Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
        let reading = try Fixtures.read(activity, name: "a.tcx")
        #expect(reading.track.format == .tcx)
        #expect(reading.track.segments.map(\.count) == [2, 1])
        let p = reading.track.segments[0][0]
        #expect(p.altitude == 12.5 && p.heartRate == 120 && p.cadence == 85 && p.speed == 5.5 && p.power == 210)
        #expect(reading.diagnostics.map(\.description) == ["a.tcx:8:18: 1 Trackpoint without a Position skipped"])

        let course = """
            <TrainingCenterDatabase><Courses><Course><Name>Loop</Name><Track>
            <Trackpoint><Position><LatitudeDegrees>1</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>
            <Trackpoint><Position><LatitudeDegrees>1.001</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></Trackpoint>
            </Track><CoursePoint><Name>Water</Name><Position><LatitudeDegrees>1.0005</LatitudeDegrees><LongitudeDegrees>2</LongitudeDegrees></Position></CoursePoint>
            </Course></Courses></TrainingCenterDatabase>
            """
        let c = try Fixtures.read(course).track
        #expect(c.name == "Loop" && c.segments.map(\.count) == [2] && c.waypoints.map(\.name) == ["Water"])
    }

    @Test func kmlMultiGeometryTracksAndPolygons() throws {
        let text = """
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><Folder>
            <Placemark><name>Flight</name><MultiGeometry>
              <LineString><coordinates>1,2,3 1.001, 2.001,4
                1.002,2.002</coordinates></LineString>
              <Polygon><outerBoundaryIs><LinearRing><coordinates>0,0 1,0 1,1 0,0</coordinates></LinearRing></outerBoundaryIs></Polygon>
            </MultiGeometry></Placemark>
            <Placemark><gx:MultiTrack><gx:Track><when>2024-01-01T00:00:00Z</when><when>2024-01-01T00:00:10Z</when>
              <gx:coord>5 6 7</gx:coord><gx:coord>5.001 6.001 8</gx:coord></gx:Track></gx:MultiTrack></Placemark>
            <Placemark><name>P</name><TimeStamp><when>2024-01-01T00:00:05Z</when></TimeStamp><Point><coordinates>9,10</coordinates></Point></Placemark>
            </Folder></Document></kml>
            """
        let reading = try Fixtures.read(text, name: "f.kml")
        let track = reading.track
        #expect(track.name == "Flight")
        #expect(track.segments.map(\.count) == [3, 2])
        #expect(track.segments[0][1].latitude == 2.001 && track.segments[0][1].altitude == 4)
        #expect(track.segments[1][1].time == Date(timeIntervalSince1970: 1_704_067_210) && track.segments[1][1].altitude == 8)
        #expect(track.waypoints == [Waypoint(name: "P", latitude: 10, longitude: 9, time: Date(timeIntervalSince1970: 1_704_067_205))])
        #expect(reading.diagnostics.map(\.description) == ["f.kml: 1 polygon skipped: a track is a line"])
    }

    @Test func geoJSONShapes() throws {
        let bare = try Fixtures.read(#"{"type":"LineString","coordinates":[[2,1],[2.001,1.001,30]]}"#).track
        #expect(bare.format == .geoJSON && bare.segments[0].map(\.latitude) == [1, 1.001] && bare.segments[0][1].altitude == 30)
        let times = try Fixtures.read(#"""
            {"type":"Feature","properties":{"name":"n","coordinateProperties":{"times":[1700000000000, "2023-11-14T22:13:21Z"]}},
             "geometry":{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[2,1],[2.001,1.001]]},
                                                                  {"type":"MultiPoint","coordinates":[[5,6]]}]}}
            """#).track
        #expect(times.name == "n" && times.points.map(\.time) == [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_000_001)])
        #expect(times.waypoints.count == 1)
        let mismatched = try Fixtures.read(#"{"type":"Feature","properties":{"times":[1]},"geometry":{"type":"LineString","coordinates":[[2,1],[3,1]]}}"#, name: "m.json")
        #expect(mismatched.track.points.allSatisfy { $0.time == nil })
        #expect(mismatched.diagnostics.map(\.description) == ["m.json:1:41: 1 times for 2 positions: the times are ignored"])
    }

    /// The data checks: NaN, out of range, duplicates, time going backwards, jumps over 1,000 km/h:
    /// dropped, one warning each with the first point's position.
    @Test func badDataIsDroppedWithWarnings() throws {
        let text = Fixtures.gpx("<trk><trkseg>\n" + [
            Fixtures.trkpt(60, 25, "2024-01-01T00:00:00Z"),
            "<trkpt lat=\"NaN\" lon=\"25\"/>",
            Fixtures.trkpt(60.0001, 25, "2024-01-01T00:00:01Z"),
            Fixtures.trkpt(60.0001, 25, "2024-01-01T00:00:01Z"),
            Fixtures.trkpt(60.0002, 25, "2023-12-31T23:59:00Z"),
            Fixtures.trkpt(61, 25, "2024-01-01T00:00:02Z"),
            Fixtures.trkpt(95, 25, "2024-01-01T00:00:02Z"),
            Fixtures.trkpt(60.0003, 25, "2024-01-01T00:00:03Z"),
        ].joined(separator: "\n") + "\n</trkseg></trk>")
        let reading = try Fixtures.read(text, name: "bad.gpx")
        #expect(reading.track.points.map(\.latitude) == [60, 60.0001, 60.0003])
        #expect(reading.warnings.map(\.kind) == [.invalidPosition, .duplicate, .timeBackwards, .jump])
        #expect(reading.diagnostics.map(\.listed) == [
            "bad.gpx:5:26: warning: 2 points dropped: latitude or longitude not a number or out of range (the first: latitude nan, longitude 25.0)",
            "bad.gpx:7:32: warning: 1 point dropped: the same position and time as the point before",
            "bad.gpx:8:32: warning: 1 point dropped: time goes backwards (the first: 2023-12-31T23:59:00Z after 2024-01-01T00:00:01Z)",
            "bad.gpx:9:29: warning: 1 point dropped: reached faster than 1000 km/h from the point before (the first: 111 km in 1 s)",
        ])
    }

    /// What a reader allocates follows the file's size: a million-point GPX of 60 MB is not needed to
    /// see it; a FIT header announcing 4 GB of data in a 30-byte file is refused at once.
    @Test func sizesInHeadersAllocateNothing() throws {
        var header: [UInt8] = [14, 0x10, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x2E, 0x46, 0x49, 0x54, 0, 0]
        header += [0x40, 0, 0, 20, 0, 0xFF]  // a definition of 255 fields, cut short
        #expect(Fixtures.error(Data(header), name: "big.fit")?.hasPrefix("big.fit: record 0: the data ends inside a definition message's 255 fields") == true)
    }
}
