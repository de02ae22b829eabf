/*
 * store_schema.h - the schema, as text, in one place: one migration per
 * version and backend. Migration v takes a store at version v - 1 (0: an
 * empty database) to version v. Forward only: a migration is never
 * edited once released; a change is a new version. tests/store/fixtures/
 * keeps a store made by each earlier version, which the store suite opens.
 */
#ifndef BUTTERFLY_STORE_SCHEMA_H
#define BUTTERFLY_STORE_SCHEMA_H

/* Index v (1 .. STORE_SCHEMA_VERSION) is migration v; index 0 is NULL. */
extern const char *const store_schema_sqlite[];
extern const char *const store_schema_pg[];

#endif
