#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_SQLSTATE is a character-literal macro, which Swift does not import.
static inline const char *cpostgres_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, 'C');
}

// libpq prints NOTICE messages to standard error by default; this processor drops them,
// so nothing bypasses the server's own log writer.
static inline void cpostgres_ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}
static inline void cpostgres_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, cpostgres_ignore_notice, 0);
}
#endif
