/*
 * sqlite-main.c - CPU-heavy SQLite workload, the large benchmark fixture for
 * sfdbg (thousands of functions in .sframe, deep call stacks at any stop).
 *
 * Usage: sqlite [ITERATIONS]
 * Opens an in-memory database, writes "ready\n" to stdout, then runs rounds
 * of a recursive CTE + inserts + indexed and ORDER BY selects + aggregates +
 * deletes; forever, or ITERATIONS rounds and then exits 0.
 *
 * Built by scripts/build-sqlite.sh against the SQLite amalgamation shipped
 * in the github.com/mattn/go-sqlite3 Go module (sqlite3-binding.c/.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sqlite3-binding.h"

static sqlite3 *db;
static volatile long long checksum;

static void die(const char *what)
{
	fprintf(stderr, "sqlite: %s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
	exit(1);
}

static void exec(const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s\n  in: %s\n", err ? err : "?", sql);
		exit(1);
	}
}

static long long query_sum(sqlite3_stmt *st)
{
	long long sum = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		sum += sqlite3_column_int64(st, 0) + sqlite3_column_bytes(st, 1);
	if (rc != SQLITE_DONE)
		die("step");
	sqlite3_reset(st);
	return sum;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : -1;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		die("open");
	exec("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);"
	     "CREATE INDEX t_k ON t(k);"
	     "CREATE TABLE agg(k INTEGER PRIMARY KEY, n INTEGER, total INTEGER);");

	sqlite3_stmt *sel_order, *sel_join, *sel_range;
	if (sqlite3_prepare_v2(db,
		"SELECT k, v FROM t ORDER BY v DESC, k LIMIT 200", -1, &sel_order, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
		"SELECT a.k + b.n, group_concat(a.v, ',') FROM t a JOIN agg b ON a.k % 97 = b.k "
		"GROUP BY a.k % 13 ORDER BY 1", -1, &sel_join, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
		"SELECT count(*), printf('%08x', sum(k)) FROM t WHERE k BETWEEN ?1 AND ?1 + 5000",
		-1, &sel_range, NULL) != SQLITE_OK)
		die("prepare");

	static const char ready[] = "ready\n";
	if (write(1, ready, sizeof ready - 1) < 0)
		return 1;

	for (long r = 0; rounds < 0 || r < rounds; r++) {
		exec("BEGIN;"
		     "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000)"
		     " INSERT INTO t(k, v) SELECT (x * 7919) % 100003,"
		     "  hex(randomblob(8)) || substr('abcdefghijklmnopqrstuvwxyz', x % 26 + 1, 5)"
		     " FROM c;"
		     "INSERT OR REPLACE INTO agg(k, n, total)"
		     " SELECT k % 97, count(*), sum(k) FROM t GROUP BY k % 97;"
		     "COMMIT;");
		long long sum = query_sum(sel_order);
		sum += query_sum(sel_join);
		sqlite3_bind_int64(sel_range, 1, (r * 7717) % 100003);
		sum += query_sum(sel_range);
		/* keep the table bounded: at most ~8000 rows survive a round */
		exec("DELETE FROM t WHERE id % 3 != 0 OR id <= (SELECT max(id) - 8000 FROM t);");
		checksum += sum;
	}
	sqlite3_finalize(sel_order);
	sqlite3_finalize(sel_join);
	sqlite3_finalize(sel_range);
	sqlite3_close(db);
	return 0;
}
