#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot
/// import as a constant; binding text with it makes SQLite copy the bytes.
static inline void (*uptake_sqlite_transient(void))(void *) {
  return SQLITE_TRANSIENT;
}
