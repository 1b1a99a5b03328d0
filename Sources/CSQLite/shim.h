#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot
/// import as a constant; binding text with it makes SQLite copy the bytes.
static inline void (*uptake_sqlite_transient(void))(void *) {
  return SQLITE_TRANSIENT;
}

/// sqlite3_config is variadic, which Swift cannot call: this turns off
/// SQLite's memory statistics. Call before the first connection opens.
static inline int uptake_sqlite_disable_memory_statistics(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
