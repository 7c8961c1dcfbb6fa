import CSQLite
import Foundation

/// An SQLite failure, with SQLite's own message (`sqlite3_errmsg`, or `sqlite3_errstr` when there
/// is no connection to ask) and what was being done.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The (extended) result code, e.g. SQLITE_CANTOPEN (14), SQLITE_CONSTRAINT_UNIQUE (2067).
    public let code: Int32
    public let message: String
    public let operation: String

    /// The primary result code (the low byte of an extended code).
    public var primaryCode: Int32 { code & 0xff }

    public var description: String { "sqlite: \(operation): \(message)" }

    /// The error the connection reports after a failed call.
    static func from(_ db: OpaquePointer?, _ code: Int32, _ operation: @autoclosure () -> String) -> SQLiteError {
        let message: String
        if let db, let m = sqlite3_errmsg(db) {
            message = String(cString: m)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        return SQLiteError(code: (extended & 0xff) == (code & 0xff) ? extended : code, message: message,
                           operation: operation())
    }
}

/// An SQLite connection (one `sqlite3*`, closed in deinit). Not for sharing between threads.
public final class Database {
    public enum Mode: Sendable {
        /// Opens an existing file for reading; fails when it is missing.
        case readOnly
        /// Opens an existing file for reading and writing.
        case readWrite
        /// Opens for reading and writing, creating the file when missing.
        case readWriteCreate
    }

    public let pointer: OpaquePointer
    public let path: String

    public init(path: String, mode: Mode = .readOnly) throws {
        var flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        flags |= SQLITE_OPEN_NOMUTEX  // one connection per owner; no sharing between threads
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        if rc != SQLITE_OK {
            let error = SQLiteError.from(db, rc, "open \(path)")
            sqlite3_close_v2(db)  // sqlite3_open_v2 allocates a handle even when it fails
            throw error
        }
        guard let db else { throw SQLiteError(code: SQLITE_NOMEM, message: String(cString: sqlite3_errstr(SQLITE_NOMEM)), operation: "open \(path)") }
        pointer = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Wait a little rather than fail at once when another process holds a lock.
        sqlite3_busy_timeout(db, 2000)
    }

    deinit { sqlite3_close_v2(pointer) }

    /// Runs one or more statements that return no rows of interest.
    public func exec(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(pointer, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errmsg)
            throw SQLiteError(code: rc, message: message, operation: "exec \(Self.abbreviate(sql))")
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<R>(_ body: () throws -> R) throws -> R {
        try exec("BEGIN")
        do {
            let result = try body()
            try exec("COMMIT")
            return result
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(pointer)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(pointer) }

    /// Whether a table (or view) of that name exists.
    public func tableExists(_ name: String) throws -> Bool {
        let s = try prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?")
        try s.bind(name, at: 1)
        return try s.step()
    }

    /// The SQLite library version, e.g. "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    static func abbreviate(_ sql: String) -> String {
        let oneLine = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        return oneLine.count > 80 ? String(oneLine.prefix(77)) + "..." : oneLine
    }
}

/// A value to bind to a statement parameter.
public enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A compiled statement (one `sqlite3_stmt*`, finalized in deinit). Keeps its database alive.
public final class Statement {
    public let pointer: OpaquePointer
    public let database: Database
    public let sql: String

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.pointer, sql, -1, &stmt, nil)
        if rc != SQLITE_OK {
            sqlite3_finalize(stmt)
            throw SQLiteError.from(database.pointer, rc, "prepare \(Database.abbreviate(sql))")
        }
        guard let stmt else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the SQL text",
                              operation: "prepare \(Database.abbreviate(sql))")
        }
        pointer = stmt
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(pointer) }

    private func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws {
        if rc != SQLITE_OK { throw SQLiteError.from(database.pointer, rc, operation()) }
    }

    // MARK: Binding (indexes start at 1, as in SQLite)

    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(pointer, index)
        case .integer(let v): rc = sqlite3_bind_int64(pointer, index, v)
        case .real(let v): rc = sqlite3_bind_double(pointer, index, v)
        case .text(let v): rc = sqlite3_bind_text(pointer, index, v, -1, maptrip_sqlite_transient())
        case .blob(let v):
            rc = v.withUnsafeBytes { bytes in
                // A zero-length blob is still a blob, not NULL: bind a zeroblob for it.
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_zeroblob(pointer, index, 0)
                }
                return sqlite3_bind_blob64(pointer, index, base, sqlite3_uint64(bytes.count),
                                           maptrip_sqlite_transient())
            }
        }
        try check(rc, "bind parameter \(index) of \(Database.abbreviate(sql))")
    }

    public func bind(_ value: Int, at index: Int32) throws { try bind(.integer(Int64(value)), at: index) }
    public func bind(_ value: Int64, at index: Int32) throws { try bind(.integer(value), at: index) }
    public func bind(_ value: Double, at index: Int32) throws { try bind(.real(value), at: index) }
    public func bind(_ value: String?, at index: Int32) throws { try bind(value.map { .text($0) } ?? .null, at: index) }
    public func bind(_ value: Data?, at index: Int32) throws { try bind(value.map { .blob($0) } ?? .null, at: index) }

    /// Binds values to parameters 1, 2, ... in order.
    public func bind(_ values: SQLiteValue...) throws {
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    // MARK: Running

    /// Advances to the next row: true when there is one, false when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(pointer)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError.from(database.pointer, rc, "step \(Database.abbreviate(sql))")
        }
    }

    /// Makes the statement ready to run again (bindings are kept).
    public func reset() throws {
        try check(sqlite3_reset(pointer), "reset \(Database.abbreviate(sql))")
    }

    public func clearBindings() { sqlite3_clear_bindings(pointer) }

    /// Resets, binds the values and runs to completion (for INSERT / UPDATE / DELETE).
    public func run(_ values: SQLiteValue...) throws {
        sqlite3_reset(pointer)  // an error of the previous run was already reported by its step
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
        while try step() {}
    }

    // MARK: Columns of the current row (indexes start at 0, as in SQLite)

    public var columnCount: Int32 { sqlite3_column_count(pointer) }

    public func columnName(_ index: Int32) -> String? {
        sqlite3_column_name(pointer, index).map { String(cString: $0) }
    }

    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(pointer, index) == SQLITE_NULL }

    public func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(pointer, index)) }
    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(pointer, index) }
    public func double(_ index: Int32) -> Double { sqlite3_column_double(pointer, index) }

    /// The column as text; nil when NULL.
    public func text(_ index: Int32) -> String? {
        guard let p = sqlite3_column_text(pointer, index) else { return nil }
        let n = Int(sqlite3_column_bytes(pointer, index))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The column as bytes; nil when NULL (an empty blob is empty Data).
    public func blob(_ index: Int32) -> Data? {
        if isNull(index) { return nil }
        let p = sqlite3_column_blob(pointer, index)
        let n = Int(sqlite3_column_bytes(pointer, index))
        guard let p, n > 0 else { return Data() }
        return Data(bytes: p, count: n)
    }
}
