/*
 * store_schema.c - the migrations of both backends (store_schema.h).
 *
 * The two dialects differ in types only: SQLite's INTEGER is 64 bits and
 * BLOB holds bytes; PostgreSQL's BIGINT and BYTEA. Times are ms since the
 * epoch in integers, so both compare and page them alike. A record names
 * its student by id without a foreign key: an open lab's student and a
 * forgotten student's records (gone with them) need none, and issue 22's
 * students (issuer, sub) arrive as a later migration.
 *
 * The version lives in a one-row table on both backends, written in the
 * migration's own transaction, so a migration is all there or not at all.
 */
#include "store/store_schema.h"

#include <stddef.h>

#include "store/store.h"

#define V1_SCHEMA(INT, BYTES)                                                        \
    "CREATE TABLE schema_version (\n"                                               \
    "    version " INT " NOT NULL\n"                                                \
    ");\n"                                                                          \
    "INSERT INTO schema_version (version) VALUES (0);\n"                            \
    "CREATE TABLE students (\n"                                                     \
    "    id           TEXT PRIMARY KEY,\n"                                          \
    "    name         TEXT NOT NULL,\n"                                             \
    "    section      TEXT NOT NULL DEFAULT '',\n"                                  \
    "    email        TEXT NOT NULL DEFAULT '',\n"                                  \
    "    verified     " INT " NOT NULL,\n"                                          \
    "    token_sha256 TEXT UNIQUE,\n"                                               \
    "    created_ms   " INT " NOT NULL\n"                                           \
    ");\n"                                                                          \
    "CREATE TABLE records (\n"                                                      \
    "    id             TEXT PRIMARY KEY,\n"                                        \
    "    task           TEXT NOT NULL,\n"                                           \
    "    student        TEXT,\n"                                                    \
    "    received_ms    " INT " NOT NULL,\n"                                        \
    "    graded_ms      " INT " NOT NULL,\n"                                        \
    "    source         " BYTES " NOT NULL,\n"                                      \
    "    sha256         TEXT NOT NULL,\n"                                           \
    "    status         " INT " NOT NULL,\n"                                        \
    "    points         " INT " NOT NULL,\n"                                        \
    "    max_points     " INT " NOT NULL,\n"                                        \
    "    verdict        " BYTES " NOT NULL,\n"                                      \
    "    seed           " INT " NOT NULL,\n"                                        \
    "    device         TEXT,\n"                                                    \
    "    grader_version TEXT NOT NULL\n"                                            \
    ");\n"                                                                          \
    "CREATE INDEX records_by_student ON records (student, received_ms, id);\n"      \
    "CREATE INDEX records_by_time ON records (received_ms);\n"                      \
    "CREATE TABLE instructor (\n"                                                   \
    "    one          " INT " PRIMARY KEY CHECK (one = 1),\n"                       \
    "    token_sha256 TEXT NOT NULL,\n"                                             \
    "    created_ms   " INT " NOT NULL\n"                                           \
    ");\n"

/* Version 2: secrets the instances of a class share (the key that signs
 * session cookies), so that a cookie one instance set another accepts,
 * and a restart signs no one out. */
#define V2_SCHEMA(INT, BYTES)                                                        \
    "CREATE TABLE secrets (\n"                                                      \
    "    name       TEXT PRIMARY KEY,\n"                                            \
    "    value      " BYTES " NOT NULL,\n"                                          \
    "    created_ms " INT " NOT NULL\n"                                             \
    ");\n"

const char *const store_schema_sqlite[STORE_SCHEMA_VERSION + 1] = {
    NULL,
    V1_SCHEMA("INTEGER", "BLOB"),
    V2_SCHEMA("INTEGER", "BLOB"),
};

const char *const store_schema_pg[STORE_SCHEMA_VERSION + 1] = {
    NULL,
    V1_SCHEMA("BIGINT", "BYTEA"),
    V2_SCHEMA("BIGINT", "BYTEA"),
};
