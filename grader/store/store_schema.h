/*
 * store_schema.h - the schema, as text, in one place: one migration per
 * version and backend. Migration v takes a store at version v - 1 (0: an
 * empty database) to version v. Forward only: a migration is never
 * edited once released; a change is a new version. Every table is here,
 * LTI's included (version 3), so a migration sees every column a trigger
 * names. tests/store/fixtures/
 * keeps a store made by each earlier version, which the store suite opens.
 */
#ifndef BUTTERFLY_STORE_SCHEMA_H
#define BUTTERFLY_STORE_SCHEMA_H

#include "store/store.h"

/* Index v (1 .. STORE_SCHEMA_VERSION) is migration v; index 0 is NULL. */
extern const char *const store_schema_sqlite[];
extern const char *const store_schema_pg[];

/* What migration v does beyond its text, in both dialects (NULL: nothing),
 * run after the text in the same transaction: version 3 keeps the rows
 * of LTI's tables as store_lti.c made them before they joined the
 * migrations. */
typedef enum store_status store_schema_step_fn(struct store *s, struct store_error *err);
extern store_schema_step_fn *const store_schema_after[];

#endif
