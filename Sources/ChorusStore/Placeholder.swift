import CSQLite
let sqliteVersion = sqlite3_libversion_number()
