/*
 * The SQLite ceiling for tools/bench: how many of Uptake's event rows this
 * machine's SQLite can insert a second when nothing else is in the way.
 *
 *   cc -O2 -o sqlite-ceiling tools/sqlite-ceiling.c -lsqlite3
 *   ./sqlite-ceiling DB [SECONDS]
 *
 * One prepared INSERT of the `events` row shape (schema/0001_initial.sql)
 * into a plain table without its secondary index, 1000 rows a transaction,
 * WAL, synchronous=NORMAL, in pages of the size Uptake makes its files with
 * (Database.pageSize; SQLite's default of 4 KiB inserts about a tenth
 * slower): the fastest honest way to store these rows, so
 * Uptake's batch ingest is judged against it. Values vary like real events
 * (a random UUIDv4 client id and its 64-bit hash, random installs) so the
 * pages fill as they would. Prints `rows/s: N` on stdout.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { rows_per_transaction = 1000 };

static const char *create_table =
    "CREATE TABLE events ("
    " seq INTEGER PRIMARY KEY, app_no INTEGER NOT NULL, client_id TEXT,"
    " dedup_key INTEGER, update_id TEXT NOT NULL, action INTEGER NOT NULL,"
    " app_version TEXT NOT NULL, install_id TEXT, ts INTEGER NOT NULL,"
    " received_at INTEGER NOT NULL, os_version TEXT, platform TEXT,"
    " previous_app_version TEXT, is_test INTEGER NOT NULL)";

static const char *insert_row =
    "INSERT INTO events (app_no, client_id, dedup_key, update_id, action,"
    " app_version, install_id, ts, received_at, os_version, platform,"
    " previous_app_version, is_test) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";

/* xorshift64*: cheap next to an insert, so the figure is SQLite's. */
static uint64_t random_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void) {
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  return random_state * 0x2545f4914f6cdd1dull;
}

static void format_uuid4(char out[37]) {
  static const char hex[] = "0123456789abcdef";
  uint64_t high = next_random(), low = next_random();
  int nibble = 0;
  for (int i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      out[i] = '-';
      continue;
    }
    uint64_t source = nibble < 16 ? high : low;
    out[i] = hex[(source >> (4 * (nibble % 16))) & 15];
    nibble++;
  }
  out[14] = '4';
  out[19] = hex[8 + (next_random() & 3)];
  out[36] = 0;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void check(sqlite3 *db, int rc, const char *what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "sqlite-ceiling: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static void exec(sqlite3 *db, const char *sql) {
  check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sqlite-ceiling DB [SECONDS]\n");
    return 64;
  }
  double seconds = argc > 2 ? atof(argv[2]) : 5;
  sqlite3 *db;
  check(NULL, sqlite3_open(argv[1], &db), "open");
  exec(db, "PRAGMA page_size=16384");
  exec(db, "PRAGMA journal_mode=WAL");
  exec(db, "PRAGMA synchronous=NORMAL");
  exec(db, create_table);

  sqlite3_stmt *insert;
  check(db, sqlite3_prepare_v3(db, insert_row, -1, SQLITE_PREPARE_PERSISTENT, &insert, NULL),
        "prepare");
  static const char *actions_versions[] = {"2.0.0", "2.1.0", "2.2.0", "2.3.0"};
  static const char *platforms[] = {"ios", "android"};
  char client_id[37], update_id[16], install_id[9], os_version[8];
  int64_t base_ms = (int64_t)time(NULL) * 1000;
  long long rows = 0;
  double start = now_seconds(), elapsed = 0;
  while (elapsed < seconds) {
    exec(db, "BEGIN");
    for (int i = 0; i < rows_per_transaction; i++) {
      uint64_t r = next_random();
      format_uuid4(client_id);
      snprintf(update_id, sizeof update_id, "782000001589%03d", (int)(r % 100));
      snprintf(install_id, sizeof install_id, "%08x", (unsigned)((r >> 8) % 1000000));
      snprintf(os_version, sizeof os_version, "17.%d", (int)((r >> 32) % 6));
      sqlite3_bind_int64(insert, 1, 1);
      sqlite3_bind_text(insert, 2, client_id, 36, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 3, (int64_t)next_random());
      sqlite3_bind_text(insert, 4, update_id, 15, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 5, (int64_t)((r >> 40) % 4));
      sqlite3_bind_text(insert, 6, actions_versions[(r >> 44) % 4], -1, SQLITE_STATIC);
      sqlite3_bind_text(insert, 7, install_id, 8, SQLITE_STATIC);
      sqlite3_bind_int64(insert, 8, base_ms + rows);
      sqlite3_bind_int64(insert, 9, base_ms + rows);
      sqlite3_bind_text(insert, 10, os_version, -1, SQLITE_STATIC);
      sqlite3_bind_text(insert, 11, platforms[(r >> 48) & 1], -1, SQLITE_STATIC);
      sqlite3_bind_null(insert, 12);
      sqlite3_bind_int64(insert, 13, 0);
      check(db, sqlite3_step(insert), "insert");
      sqlite3_reset(insert);
      rows++;
    }
    exec(db, "COMMIT");
    elapsed = now_seconds() - start;
  }
  sqlite3_finalize(insert);
  sqlite3_close(db);
  printf("rows/s: %.0f\n", (double)rows / elapsed);
  return 0;
}
