import CPostgres

/// `COPY … FROM STDIN` for bulk loads (`PostgresImport`): the rows go as data in COPY's
/// text format, not as SQL, so nothing in them is ever parsed as a statement. The server
/// skips planning and per-statement parameters: several times the rows per second of
/// multi-row INSERTs.
extension PostgresConnection {
    /// Sends `rows` (values in the order of `columns`) into `table` with one COPY;
    /// returns how many rows the server took. `table` and `columns` are the program's
    /// own constant names.
    @discardableResult
    func copyIn(_ table: String, columns: [String], rows: [[PostgresValue]]) throws -> Int64 {
        guard !rows.isEmpty else { return 0 }
        guard let connection = handle, isConnected else { throw Self.lost }
        let sql = "COPY \(table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", "))) FROM STDIN"
        guard let started = PQexec(connection, sql) else { throw copyFailure(sql, nil) }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            let failure = copyFailure(sql, started)
            PQclear(started)
            throw failure
        }
        PQclear(started)
        var data: [UInt8] = []
        data.reserveCapacity(rows.count * columns.count * 16)
        for row in rows { Self.appendCopyLine(row, to: &data) }
        let sent = data.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                PQputCopyData(connection, $0, Int32(bytes.count))
            }
        }
        // On a failed send the COPY is still open: ending it with an error message ends it.
        let ended = PQputCopyEnd(connection, sent == 1 ? nil : "the data could not be sent")
        var failure: PostgresError? = sent == 1 && ended == 1 ? nil : copyFailure(sql, nil)
        var copied: Int64 = 0
        // Every result up to the nil one must be read, or the connection stays busy.
        while let result = PQgetResult(connection) {
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = Int64(String(cString: PQcmdTuples(result))) ?? 0
            } else if failure == nil {
                failure = copyFailure(sql, result)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        return copied
    }

    private func copyFailure(_ sql: String, _ result: OpaquePointer?) -> PostgresError {
        let sqlState = result.flatMap { cpostgres_sqlstate($0) }.map { String(cString: $0) }
        let lost = !isConnected || sqlState == nil   // as in `error(doing:result:)`
        let text = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
        let reason = text.isEmpty ? handle.map { String(cString: PQerrorMessage($0)) } ?? "" : text
        return PostgresError(sqlState: sqlState, connectionLost: lost, message: "\(Self.statement(sql)): \(Self.oneLine(reason))")
    }

    /// One row in COPY's text format: tab between values, `\N` for NULL, and backslash,
    /// tab, newline and carriage return escaped inside a value.
    static func appendCopyLine(_ row: [PostgresValue], to data: inout [UInt8]) {
        for (index, value) in row.enumerated() {
            if index > 0 { data.append(UInt8(ascii: "\t")) }
            guard let text = value.textFormat else {
                data.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
                continue
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): data.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\t"): data.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case UInt8(ascii: "\n"): data.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): data.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                default: data.append(byte)
                }
            }
        }
        data.append(UInt8(ascii: "\n"))
    }
}
