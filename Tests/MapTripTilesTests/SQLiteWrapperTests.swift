import Foundation
import SQLite
import Testing

@Suite("SQLite wrapper")
struct SQLiteWrapperTests {
    @Test("create, write in a transaction, read back every column type")
    func roundTrip() throws {
        try TileTest.withTempDir { dir in
            let path = dir.appendingPathComponent("t.db").path
            let db = try Database(path: path, mode: .readWriteCreate)
            try db.exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)")
            let ins = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
            try db.transaction {
                try ins.run(.integer(42), .real(1.5), .text("héllo"), .blob(Data([0, 1, 2, 255])))
                try ins.run(.null, .null, .null, .blob(Data()))
            }
            #expect(db.changes == 1)
            let q = try db.prepare("SELECT i, r, s, b FROM t ORDER BY rowid")
            #expect(try q.step())
            #expect(q.int(0) == 42 && q.double(1) == 1.5 && q.text(2) == "héllo" && q.blob(3) == Data([0, 1, 2, 255]))
            #expect(q.columnCount == 4 && q.columnName(2) == "s")
            #expect(try q.step())
            #expect(q.isNull(0) && q.text(2) == nil && q.blob(3) == Data())
            #expect(try !q.step())
            #expect(try db.tableExists("t") && !db.tableExists("u"))
        }
    }

    @Test("a failed transaction rolls back")
    func rollback() throws {
        try TileTest.withTempDir { dir in
            let db = try Database(path: dir.appendingPathComponent("t.db").path, mode: .readWriteCreate)
            try db.exec("CREATE TABLE t (k TEXT UNIQUE)")
            let ins = try db.prepare("INSERT INTO t VALUES (?)")
            #expect(throws: SQLiteError.self) {
                try db.transaction {
                    try ins.run(.text("a"))
                    try ins.run(.text("a"))  // UNIQUE violation
                }
            }
            let n = try db.prepare("SELECT COUNT(*) FROM t")
            #expect(try n.step() && n.int(0) == 0)
        }
    }

    @Test("errors carry SQLite's own message")
    func errors() throws {
        try TileTest.withTempDir { dir in
            do {
                _ = try Database(path: dir.appendingPathComponent("missing.db").path, mode: .readOnly)
                Issue.record("opened a missing file read-only")
            } catch let e as SQLiteError {
                #expect(e.primaryCode == 14)  // SQLITE_CANTOPEN
                #expect(e.message.contains("unable to open"))
            }
            let db = try Database(path: dir.appendingPathComponent("t.db").path, mode: .readWriteCreate)
            do {
                _ = try db.prepare("SELEKT 1")
                Issue.record("prepared nonsense")
            } catch let e as SQLiteError {
                #expect(e.message.contains("syntax error") && e.description.contains("SELEKT"))
            }
            let ro = try Database(path: dir.appendingPathComponent("t.db").path, mode: .readOnly)
            #expect(throws: SQLiteError.self) { try ro.exec("CREATE TABLE x (a)") }
        }
    }
}
