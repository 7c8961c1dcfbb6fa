import Foundation
import MapTripRecord
import Testing

/// The batch's terminal view: finished scenes print above one status line that is redrawn in place.
@Suite("batch status line")
struct BatchStatusTests {
    func written(_ body: (BatchStatusLine) -> Void, enabled: Bool) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        body(BatchStatusLine(handle: handle, enabled: enabled))
        try handle.close()
        return try String(contentsOf: file, encoding: .utf8)
    }

    @Test func finishedScenesPrintAboveAStatusThatIsRedrawn() throws {
        let text = try written({ s in
            s.report(.started, total: 3, line: nil)
            s.report(.started, total: 3, line: nil)
            s.report(.rendered(frames: 84), total: 3, line: "[1/3] a.json -> clips/a.mp4")
            s.report(.failed, total: 3, line: "[2/3] b.json failed: broken")
            s.finish()
        }, enabled: true)
        // The last status drawn before finishing, and every finished scene on a line of its own.
        #expect(text.contains("batch: 0/3 done (0 rendered, 0 skipped, 0 failed), 2 running, 0 frames"))
        #expect(text.contains("\r[1/3] a.json -> clips/a.mp4\n"), "\(text.debugDescription)")
        #expect(text.contains("batch: 1/3 done (1 rendered, 0 skipped, 0 failed), 1 running, 84 frames  ETA "))
        #expect(text.contains("batch: 2/3 done (1 rendered, 0 skipped, 1 failed), 0 running, 84 frames"))
        // Finishing leaves the cursor at the start of an empty line: the summary follows cleanly.
        #expect(text.hasSuffix("\r"), "\(text.debugDescription)")
    }

    @Test func withoutATerminalOnlyTheLinesAreWritten() throws {
        let text = try written({ s in
            s.report(.started, total: 1, line: nil)
            s.report(.rendered(frames: 10), total: 1, line: "[1/1] a.json -> clips/a.mp4")
            s.finish()
        }, enabled: false)
        #expect(text == "[1/1] a.json -> clips/a.mp4\n")
    }
}
