// What a flood's fold step pays to rewrite install_days rows, by the way
// they are written (docs/performance.md, session 31).
//
//   cc -O2 -o /tmp/install-days-rows tools/microbench/install-days-rows.c -lsqlite3
//   /tmp/install-days-rows [DIRECTORY] [ROUNDS]
//
// Builds two tables shaped as install_days (schema/0016 and 0020: the key
// led by app and test flag, or by the install) with 1M rows of one app, in
// files of DIRECTORY (default /tmp) set up as the fold's rollups file is:
// 16 KiB pages, WAL, synchronous=OFF, an 8 MiB cache. Then, ROUNDS times
// (default 2), each way of writing rewrites 393,000 rows in key order in
// one transaction, each a few bytes longer: what a 500,000-event step of
// 1M installs brings. Prints microseconds a row for each.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { installs = 1000000, maxRows = 200 };

static long long keys[installs];
// The rows a step rewrites: each install with the chance that a step of
// 500,000 events picked at random brings it, 1 - e^-0.5.
static long long touched[installs];
static int rewritten;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void execute(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", sql, error);
    exit(1);
  }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *statement;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    exit(1);
  }
  return statement;
}

static void run(sqlite3 *db, sqlite3_stmt *statement) {
  if (sqlite3_step(statement) != SQLITE_DONE) {
    fprintf(stderr, "step: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
  sqlite3_reset(statement);
}

static int compare(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static sqlite3 *open_table(const char *path, const char *primaryKey) {
  sqlite3 *db;
  remove(path);
  if (sqlite3_open(path, &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  execute(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; "
              "PRAGMA synchronous = OFF; PRAGMA cache_size = -8192");
  char sql[512];
  snprintf(sql, sizeof sql,
           "CREATE TABLE install_days (app_no INTEGER NOT NULL, is_test INTEGER NOT NULL, "
           "install_key INTEGER NOT NULL, day INTEGER NOT NULL, app_version TEXT NOT NULL, "
           "first_ts INTEGER NOT NULL, times BLOB NOT NULL, PRIMARY KEY (%s)) WITHOUT ROWID",
           primaryKey);
  execute(db, sql);
  unsigned char times[20] = {0};
  execute(db, "BEGIN");
  sqlite3_stmt *insert =
      prepare(db, "INSERT INTO install_days VALUES (1, 0, ?, 20000, '2.3.0', ?, ?)");
  for (int i = 0; i < installs; i++) {
    sqlite3_bind_int64(insert, 1, keys[i]);
    sqlite3_bind_int64(insert, 2, i);
    sqlite3_bind_blob(insert, 3, times, sizeof times, SQLITE_STATIC);
    run(db, insert);
  }
  sqlite3_finalize(insert);
  execute(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)");
  return db;
}

// Binds row `i` of `touched` as the fold binds a row: every column.
static void bind_row(sqlite3_stmt *statement, int first, int i, int length) {
  static unsigned char times[64];
  sqlite3_bind_int64(statement, first + 1, 1);
  sqlite3_bind_int64(statement, first + 2, 0);
  sqlite3_bind_int64(statement, first + 3, touched[i]);
  sqlite3_bind_int64(statement, first + 4, 20000);
  sqlite3_bind_text(statement, first + 5, "2.3.0", 5, SQLITE_TRANSIENT);
  sqlite3_bind_int64(statement, first + 6, i);
  sqlite3_bind_blob(statement, first + 7, times, length, SQLITE_TRANSIENT);
}

static const char *columns =
    "(app_no, is_test, install_key, day, app_version, first_ts, times)";

// Rewrites the touched rows with `verb` ("UPDATE", "INSERT OR REPLACE",
// "UPSERT"), `rows` to a statement, in one transaction: µs a row.
static double rewrite(sqlite3 *db, const char *verb, int rows, int length) {
  char sql[maxRows * 40 + 512];
  if (strcmp(verb, "UPDATE") == 0) {
    snprintf(sql, sizeof sql,
             "UPDATE install_days SET first_ts = ?6, times = ?7 WHERE app_no = ?1 AND "
             "is_test = ?2 AND install_key = ?3 AND day = ?4 AND app_version = ?5");
    rows = 1;
  } else {
    int upsert = strcmp(verb, "UPSERT") == 0;
    char *end = sql + sprintf(sql, "%s INTO install_days %s VALUES ",
                              upsert ? "INSERT" : verb, columns);
    for (int row = 0; row < rows; row++)
      end += sprintf(end, "%s(?, ?, ?, ?, ?, ?, ?)", row ? ", " : "");
    if (upsert)
      strcat(sql, " ON CONFLICT DO UPDATE SET first_ts = excluded.first_ts, "
                  "times = excluded.times");
  }
  sqlite3_stmt *statement = prepare(db, sql);
  double start = now();
  execute(db, "BEGIN");
  for (int i = 0; i + rows <= rewritten; i += rows) {
    for (int row = 0; row < rows; row++) bind_row(statement, row * 7, i + row, length);
    run(db, statement);
  }
  execute(db, "COMMIT");
  double seconds = now() - start;
  sqlite3_finalize(statement);
  return seconds / (rewritten / rows * rows) * 1e6;
}

int main(int argc, char **argv) {
  const char *directory = argc > 1 ? argv[1] : "/tmp";
  int rounds = argc > 2 ? atoi(argv[2]) : 2;
  srand(42);
  for (int i = 0; i < installs; i++) keys[i] = ((long long)rand() << 31) ^ rand();
  qsort(keys, installs, sizeof keys[0], compare);
  for (int i = 0; i < installs; i++)
    if (rand() < 0.3935 * RAND_MAX) touched[rewritten++] = keys[i];

  char path[4096];
  snprintf(path, sizeof path, "%s/install-days-by-app.db", directory);
  sqlite3 *byApp = open_table(path, "app_no, is_test, install_key, day, app_version");
  snprintf(path, sizeof path, "%s/install-days-by-install.db", directory);
  sqlite3 *byInstall = open_table(path, "install_key, app_no, is_test, day, app_version");

  printf("%d of %d rows rewritten a pass; µs a row\n", rewritten, installs);
  // Each pass writes a table's rows a byte longer than its pass before, as
  // a step adds a time to each.
  int byAppLength = 21, byInstallLength = 21;
  for (int round = 1; round <= rounds; round++) {
    double update = rewrite(byApp, "UPDATE", 1, byAppLength++);
    double replace = rewrite(byApp, "INSERT OR REPLACE", 1, byAppLength++);
    double upsert = rewrite(byApp, "UPSERT", 64, byAppLength++);
    double replace10 = rewrite(byApp, "INSERT OR REPLACE", 10, byAppLength++);
    double replace64 = rewrite(byApp, "INSERT OR REPLACE", 64, byAppLength++);
    double replace200 = rewrite(byApp, "INSERT OR REPLACE", 200, byAppLength++);
    printf("round %d, key by app:     UPDATE a row %.2f, REPLACE a row %.2f, UPSERT 64 rows "
           "%.2f, REPLACE 10 / 64 / 200 rows %.2f / %.2f / %.2f\n",
           round, update, replace, upsert, replace10, replace64, replace200);
    update = rewrite(byInstall, "UPDATE", 1, byInstallLength++);
    replace64 = rewrite(byInstall, "INSERT OR REPLACE", 64, byInstallLength++);
    printf("round %d, key by install: UPDATE a row %.2f, REPLACE 64 rows %.2f\n", round,
           update, replace64);
    fflush(stdout);
  }
  sqlite3_close(byApp);
  sqlite3_close(byInstall);
  return 0;
}
