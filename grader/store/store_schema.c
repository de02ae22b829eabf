/*
 * store_schema.c - the migrations of both backends (store_schema.h).
 *
 * The two dialects differ in types only: SQLite's INTEGER is 64 bits and
 * BLOB holds bytes; PostgreSQL's BIGINT and BYTEA. Times are ms since the
 * epoch in integers, so both compare and page them alike. A record names
 * its student by id without a foreign key: an open lab's student and a
 * forgotten student's records (gone with them) need none; LTI's
 * (issuer, sub) → student is a table of its own (version 3).
 *
 * The version lives in a one-row table on both backends, written in the
 * migration's own transaction, so a migration is all there or not at all.
 */
#include "store/store_schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "store/store_internal.h"

#define V1_SCHEMA(INT, BYTES)                                                        \
    "CREATE TABLE schema_version (\n"                                                \
    "    version " INT " NOT NULL\n"                                                 \
    ");\n"                                                                           \
    "INSERT INTO schema_version (version) VALUES (0);\n"                             \
    "CREATE TABLE students (\n"                                                      \
    "    id           TEXT PRIMARY KEY,\n"                                           \
    "    name         TEXT NOT NULL,\n"                                              \
    "    section      TEXT NOT NULL DEFAULT '',\n"                                   \
    "    email        TEXT NOT NULL DEFAULT '',\n"                                   \
    "    verified     " INT " NOT NULL,\n"                                           \
    "    token_sha256 TEXT UNIQUE,\n"                                                \
    "    created_ms   " INT " NOT NULL\n"                                            \
    ");\n"                                                                           \
    "CREATE TABLE records (\n"                                                       \
    "    id             TEXT PRIMARY KEY,\n"                                         \
    "    task           TEXT NOT NULL,\n"                                            \
    "    student        TEXT,\n"                                                     \
    "    received_ms    " INT " NOT NULL,\n"                                         \
    "    graded_ms      " INT " NOT NULL,\n"                                         \
    "    source         " BYTES " NOT NULL,\n"                                       \
    "    sha256         TEXT NOT NULL,\n"                                            \
    "    status         " INT " NOT NULL,\n"                                         \
    "    points         " INT " NOT NULL,\n"                                         \
    "    max_points     " INT " NOT NULL,\n"                                         \
    "    verdict        " BYTES " NOT NULL,\n"                                       \
    "    seed           " INT " NOT NULL,\n"                                         \
    "    device         TEXT,\n"                                                     \
    "    grader_version TEXT NOT NULL\n"                                             \
    ");\n"                                                                           \
    "CREATE INDEX records_by_student ON records (student, received_ms, id);\n"       \
    "CREATE INDEX records_by_time ON records (received_ms);\n"                       \
    "CREATE TABLE instructor (\n"                                                    \
    "    one          " INT " PRIMARY KEY CHECK (one = 1),\n"                        \
    "    token_sha256 TEXT NOT NULL,\n"                                              \
    "    created_ms   " INT " NOT NULL\n"                                            \
    ");\n"

/* Version 2: secrets the instances of a class share (the key that signs
 * session cookies), so that a cookie one instance set another accepts,
 * and a restart signs no one out. */
#define V2_SCHEMA(INT, BYTES)                                                        \
    "CREATE TABLE secrets (\n"                                                       \
    "    name       TEXT PRIMARY KEY,\n"                                             \
    "    value      " BYTES " NOT NULL,\n"                                           \
    "    created_ms " INT " NOT NULL\n"                                              \
    ");\n"

/* Version 3: LTI 1.3's tables join the records' migrations (until now
 * store_lti.c made them with CREATE ... IF NOT EXISTS and a version of
 * their own, lti_schema), and the facts the class view shows of a
 * record's verdict become columns, written at insert from what the
 * worker sent (common/verdict_facts.h), so that the store never reads
 * the verdict's JSON again.
 *
 * LTI's tables: IF NOT EXISTS, since a store LTI used before this version
 * has them already, in this shape (lti_schema version 2) or version 1's
 * (lti_links: one line item per student): store_schema_v3_adopt, run
 * after this text in the same transaction, moves version 1's rows and
 * drops lti_schema. lti_outbox.state: 0 waiting, 1 sent, 2 failed for
 * good. */
#define LTI_TABLES(INT, SERIAL)                                                      \
    "CREATE TABLE IF NOT EXISTS lti_keys (\n"                                        \
    "    kid TEXT PRIMARY KEY, jwk TEXT NOT NULL,\n"                                 \
    "    created_ms " INT " NOT NULL, retired_ms " INT " NOT NULL DEFAULT 0);\n"     \
    "CREATE TABLE IF NOT EXISTS lti_states (\n"                                      \
    "    state TEXT PRIMARY KEY, nonce TEXT NOT NULL, issuer TEXT NOT NULL,\n"       \
    "    client_id TEXT NOT NULL, target_link_uri TEXT NOT NULL,\n"                  \
    "    relaunch TEXT NOT NULL DEFAULT '', expires_ms " INT " NOT NULL);\n"         \
    "CREATE TABLE IF NOT EXISTS lti_nonces (\n"                                      \
    "    issuer TEXT NOT NULL, nonce TEXT NOT NULL, expires_ms " INT " NOT NULL,\n"  \
    "    PRIMARY KEY (issuer, nonce));\n"                                            \
    "CREATE TABLE IF NOT EXISTS lti_users (\n"                                       \
    "    issuer TEXT NOT NULL, sub TEXT NOT NULL, student TEXT NOT NULL UNIQUE,\n"   \
    "    PRIMARY KEY (issuer, sub));\n"                                              \
    "CREATE TABLE IF NOT EXISTS lti_classes (\n"                                     \
    "    issuer TEXT NOT NULL, context TEXT NOT NULL, class_id TEXT NOT NULL UNIQUE,\n" \
    "    title TEXT NOT NULL DEFAULT '', PRIMARY KEY (issuer, context));\n"          \
    "CREATE TABLE IF NOT EXISTS lti_members (\n"                                     \
    "    class_id TEXT NOT NULL, student TEXT NOT NULL, role TEXT NOT NULL,\n"       \
    "    PRIMARY KEY (class_id, student));\n"                                        \
    "CREATE TABLE IF NOT EXISTS lti_resource_links (\n"                              \
    "    link " SERIAL ", issuer TEXT NOT NULL, client_id TEXT NOT NULL,\n"          \
    "    deployment TEXT NOT NULL, context TEXT NOT NULL, resource_link TEXT NOT NULL,\n" \
    "    lineitem TEXT NOT NULL DEFAULT '',\n"                                       \
    "    UNIQUE (issuer, client_id, deployment, context, resource_link));\n"         \
    "CREATE TABLE IF NOT EXISTS lti_launches (\n"                                    \
    "    student TEXT NOT NULL, link " INT " NOT NULL, launched_ms " INT " NOT NULL,\n" \
    "    PRIMARY KEY (student, link));\n"                                            \
    "CREATE TABLE IF NOT EXISTS lti_record_links (\n"                                \
    "    record_id TEXT PRIMARY KEY, link " INT " NOT NULL);\n"                      \
    "CREATE TABLE IF NOT EXISTS lti_outbox (\n"                                      \
    "    seq " SERIAL ", record_id TEXT NOT NULL, student TEXT NOT NULL,\n"          \
    "    issuer TEXT NOT NULL, client_id TEXT NOT NULL, sub TEXT NOT NULL,\n"        \
    "    lineitem TEXT NOT NULL, points " INT " NOT NULL, max_points " INT " NOT NULL,\n" \
    "    status " INT " NOT NULL, graded_ms " INT " NOT NULL,\n"                     \
    "    state " INT " NOT NULL DEFAULT 0, attempts " INT " NOT NULL DEFAULT 0,\n"   \
    "    next_ms " INT " NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '');\n"     \
    "CREATE INDEX IF NOT EXISTS lti_outbox_waiting ON lti_outbox (state, issuer, lineitem, sub);\n" \
    "CREATE TABLE IF NOT EXISTS lti_sent (\n"                                        \
    "    issuer TEXT NOT NULL, lineitem TEXT NOT NULL, sub TEXT NOT NULL,\n"         \
    "    last_ms " INT " NOT NULL, PRIMARY KEY (issuer, lineitem, sub));\n"

/* A record's score goes to the line item of the resource link it came
 * from: the launch its page carried (lti_record_links, written in the
 * record's transaction by store.c and consumed here), else the student's
 * latest launch. Either way the student must have been launched from
 * that link (lti_launches), and the link must have a line item. */
#define OUTBOX_INSERT                                                                \
    "INSERT INTO lti_outbox (record_id, student, issuer, client_id, sub, lineitem,"  \
    " points, max_points, status, graded_ms)"                                        \
    " SELECT NEW.id, NEW.student, k.issuer, k.client_id, u.sub, k.lineitem,"         \
    " NEW.points, NEW.max_points, NEW.status, NEW.graded_ms"                         \
    " FROM lti_launches a JOIN lti_resource_links k ON k.link = a.link"              \
    " JOIN lti_users u ON u.student = a.student AND u.issuer = k.issuer"             \
    " WHERE a.student = NEW.student AND k.lineitem <> '' AND a.link = COALESCE("     \
    " (SELECT r.link FROM lti_record_links r WHERE r.record_id = NEW.id),"           \
    " (SELECT b.link FROM lti_launches b WHERE b.student = NEW.student"              \
    "  ORDER BY b.launched_ms DESC, b.link DESC LIMIT 1));"                          \
    " DELETE FROM lti_record_links WHERE record_id = NEW.id;"

/* A forgotten student (butterfly-admin forget) takes their LTI rows
 * along: a later launch of the same (issuer, sub) is a new student. */
#define FORGET_DELETE                                                                \
    "DELETE FROM lti_users WHERE student = OLD.id; "                                 \
    "DELETE FROM lti_members WHERE student = OLD.id; "                               \
    "DELETE FROM lti_launches WHERE student = OLD.id; "                              \
    "DELETE FROM lti_outbox WHERE student = OLD.id;"

/* The triggers, made anew (a store of LTI's version 1 has triggers that
 * name lti_links): a record of a student launched from a link with a
 * line item puts its score in the outbox, inside the record's own
 * transaction, whoever writes the record. */
#define V3_TRIGGERS_SQLITE                                                           \
    "DROP TRIGGER IF EXISTS lti_outbox_on_record;\n"                                 \
    "DROP TRIGGER IF EXISTS lti_forget;\n"                                           \
    "CREATE TRIGGER lti_outbox_on_record AFTER INSERT ON records\n"                  \
    "FOR EACH ROW WHEN NEW.student IS NOT NULL BEGIN " OUTBOX_INSERT " END;\n"       \
    "CREATE TRIGGER lti_forget AFTER DELETE ON students\n"                           \
    "FOR EACH ROW BEGIN " FORGET_DELETE " END;\n"

#define V3_TRIGGERS_PG                                                               \
    "CREATE OR REPLACE FUNCTION lti_outbox_on_record() RETURNS trigger LANGUAGE plpgsql\n" \
    "AS $$ BEGIN " OUTBOX_INSERT " RETURN NEW; END $$;\n"                            \
    "CREATE OR REPLACE TRIGGER lti_outbox_on_record AFTER INSERT ON records\n"       \
    "FOR EACH ROW WHEN (NEW.student IS NOT NULL) EXECUTE FUNCTION lti_outbox_on_record();\n" \
    "CREATE OR REPLACE FUNCTION lti_forget() RETURNS trigger LANGUAGE plpgsql\n"     \
    "AS $$ BEGIN " FORGET_DELETE " RETURN OLD; END $$;\n"                            \
    "CREATE OR REPLACE TRIGGER lti_forget AFTER DELETE ON students\n"                \
    "FOR EACH ROW EXECUTE FUNCTION lti_forget();\n"

/* The class view's facts of a verdict (struct verdict_shown): shown_key
 * "mistake:ID", "compile:MESSAGE" or ''; shown_label its words; half1..3
 * each half right (1), wrong (0) or not run (-1). */
#define V3_SHOWN_COLUMNS(INT)                                                        \
    "ALTER TABLE records ADD COLUMN shown_key TEXT NOT NULL DEFAULT '';\n"           \
    "ALTER TABLE records ADD COLUMN shown_label TEXT NOT NULL DEFAULT '';\n"         \
    "ALTER TABLE records ADD COLUMN half1 " INT " NOT NULL DEFAULT -1;\n"            \
    "ALTER TABLE records ADD COLUMN half2 " INT " NOT NULL DEFAULT -1;\n"            \
    "ALTER TABLE records ADD COLUMN half3 " INT " NOT NULL DEFAULT -1;\n"

/* The records made before version 3 get their facts from their verdicts'
 * JSON, once, here: the rule common/verdict_facts.c follows (a diagnosis
 * names the mistake; a compile error its first message), in each
 * dialect's JSON functions. Texts are cut to fit the class view's
 * (VERDICT_FACTS_TEXT less its NUL) by the reader. 6: a compile error. */
#define V3_FILL_SQLITE                                                               \
    "UPDATE records SET\n"                                                           \
    " half1 = COALESCE(json_extract(CAST(verdict AS TEXT), '$.halves[0].passed'), -1),\n" \
    " half2 = COALESCE(json_extract(CAST(verdict AS TEXT), '$.halves[1].passed'), -1),\n" \
    " half3 = COALESCE(json_extract(CAST(verdict AS TEXT), '$.halves[2].passed'), -1),\n" \
    " shown_key = CASE\n"                                                            \
    "  WHEN json_type(CAST(verdict AS TEXT), '$.diagnosis.id') = 'text'\n"           \
    "   AND json_extract(CAST(verdict AS TEXT), '$.diagnosis.id') <> ''\n"           \
    "   THEN 'mistake:' || json_extract(CAST(verdict AS TEXT), '$.diagnosis.id')\n"  \
    "  WHEN status = 6 THEN 'compile:' || COALESCE(json_extract(CAST(verdict AS TEXT),\n" \
    "   '$.diagnostics[0].message'), 'compile error')\n"                             \
    "  ELSE '' END,\n"                                                               \
    " shown_label = CASE\n"                                                          \
    "  WHEN json_type(CAST(verdict AS TEXT), '$.diagnosis.id') = 'text'\n"           \
    "   AND json_extract(CAST(verdict AS TEXT), '$.diagnosis.id') <> ''\n"           \
    "   THEN COALESCE(NULLIF(json_extract(CAST(verdict AS TEXT), '$.diagnosis.title'), ''),\n" \
    "    json_extract(CAST(verdict AS TEXT), '$.diagnosis.id'))\n"                   \
    "  WHEN status = 6 THEN COALESCE(json_extract(CAST(verdict AS TEXT),\n"          \
    "   '$.diagnostics[0].message'), 'compile error')\n"                             \
    "  ELSE '' END\n"                                                                \
    "WHERE json_valid(CAST(verdict AS TEXT));\n"

#define V3_FILL_PG                                                                   \
    "UPDATE records r SET\n"                                                         \
    " half1 = COALESCE(CASE jsonb_typeof(q.j #> '{halves,0,passed}') WHEN 'boolean'\n" \
    "  THEN (q.j #>> '{halves,0,passed}')::boolean::int END, -1),\n"                 \
    " half2 = COALESCE(CASE jsonb_typeof(q.j #> '{halves,1,passed}') WHEN 'boolean'\n" \
    "  THEN (q.j #>> '{halves,1,passed}')::boolean::int END, -1),\n"                 \
    " half3 = COALESCE(CASE jsonb_typeof(q.j #> '{halves,2,passed}') WHEN 'boolean'\n" \
    "  THEN (q.j #>> '{halves,2,passed}')::boolean::int END, -1),\n"                 \
    " shown_key = CASE\n"                                                            \
    "  WHEN jsonb_typeof(q.j #> '{diagnosis,id}') = 'string'\n"                      \
    "   AND q.j #>> '{diagnosis,id}' <> ''\n"                                        \
    "   THEN 'mistake:' || (q.j #>> '{diagnosis,id}')\n"                             \
    "  WHEN r.status = 6 THEN 'compile:' || COALESCE(q.j #>> '{diagnostics,0,message}',\n" \
    "   'compile error')\n"                                                          \
    "  ELSE '' END,\n"                                                               \
    " shown_label = CASE\n"                                                          \
    "  WHEN jsonb_typeof(q.j #> '{diagnosis,id}') = 'string'\n"                      \
    "   AND q.j #>> '{diagnosis,id}' <> ''\n"                                        \
    "   THEN COALESCE(NULLIF(q.j #>> '{diagnosis,title}', ''), q.j #>> '{diagnosis,id}')\n" \
    "  WHEN r.status = 6 THEN COALESCE(q.j #>> '{diagnostics,0,message}',\n"         \
    "   'compile error')\n"                                                          \
    "  ELSE '' END\n"                                                                \
    "FROM (SELECT id, convert_from(verdict, 'UTF8')::jsonb AS j FROM records) q\n"   \
    "WHERE q.id = r.id;\n"

#define V3_SCHEMA(INT, SERIAL, TRIGGERS, FILL)                                       \
    LTI_TABLES(INT, SERIAL) TRIGGERS V3_SHOWN_COLUMNS(INT) FILL

/* Version 4: what butterfly-admin changed about who may sign in (a
 * student forgotten, a student's or the instructor's token renewed), one
 * row per change, written in the change's own transaction, so that every
 * running server, which shares nothing else with the admin, learns of it
 * at its next poll (store_identity_changes) and ends the sessions and
 * the class views' tiles at once rather than at a restart. student NULL:
 * the instructor's token. Rows older than STORE_IDENTITY_KEEP_MS are
 * dropped by the next change. */
#define V4_SCHEMA(INT, SERIAL)                                                       \
    "CREATE TABLE identity_changes (\n"                                              \
    "    seq        " SERIAL ",\n"                                                   \
    "    student    TEXT,\n"                                                         \
    "    forgotten  " INT " NOT NULL,\n"                                             \
    "    changed_ms " INT " NOT NULL\n"                                              \
    ");\n"

/* Version 5: Idempotency-Keys (issue 31 item 6), each beside the record
 * it names, written in that record's transaction (store.c), one
 * principal's (scope) each. A record deleted (forgotten, past retention)
 * takes its key along. */
#define V5_KEYS(INT)                                                                 \
    "CREATE TABLE idempotency_keys (\n"                                              \
    "    scope       TEXT NOT NULL,\n"                                               \
    "    idem_key    TEXT NOT NULL,\n"                                               \
    "    body_sha256 TEXT NOT NULL,\n"                                               \
    "    record_id   TEXT NOT NULL,\n"                                               \
    "    created_ms  " INT " NOT NULL,\n"                                            \
    "    PRIMARY KEY (scope, idem_key)\n"                                            \
    ");\n"                                                                           \
    "CREATE INDEX idempotency_keys_by_record ON idempotency_keys (record_id);\n"

#define V5_KEYS_SQLITE                                                               \
    V5_KEYS("INTEGER")                                                               \
    "CREATE TRIGGER idempotency_keys_on_delete AFTER DELETE ON records\n"            \
    "FOR EACH ROW BEGIN DELETE FROM idempotency_keys WHERE record_id = OLD.id; END;\n"

#define V5_KEYS_PG                                                                   \
    V5_KEYS("BIGINT")                                                                \
    "CREATE OR REPLACE FUNCTION idempotency_keys_on_delete() RETURNS trigger\n"      \
    "LANGUAGE plpgsql AS $$ BEGIN\n"                                                 \
    " DELETE FROM idempotency_keys WHERE record_id = OLD.id; RETURN OLD; END $$;\n"  \
    "CREATE OR REPLACE TRIGGER idempotency_keys_on_delete AFTER DELETE ON records\n" \
    "FOR EACH ROW EXECUTE FUNCTION idempotency_keys_on_delete();\n"

/* Version 6: LTI Dynamic Registration (issue 34). A registration's
 * one-time address is kept as its token's SHA-256 only (a copy of the
 * store does not hold a usable address), deleted when taken; a platform
 * that registered itself is kept beside --lti-config's, keyed as they
 * are by (issuer, client_id). deployment_id '': the platform named none
 * (Canvas names it at install), and any deployment of that client is its. */
#define V6_SCHEMA(INT)                                                               \
    "CREATE TABLE lti_registration_tokens (\n"                                       \
    "    token_sha256 TEXT PRIMARY KEY,\n"                                           \
    "    expires_ms   " INT " NOT NULL\n"                                            \
    ");\n"                                                                           \
    "CREATE TABLE lti_platforms (\n"                                                 \
    "    issuer         TEXT NOT NULL,\n"                                            \
    "    client_id      TEXT NOT NULL,\n"                                            \
    "    name           TEXT NOT NULL,\n"                                            \
    "    deployment_id  TEXT NOT NULL DEFAULT '',\n"                                 \
    "    auth_login_url TEXT NOT NULL,\n"                                            \
    "    auth_token_url TEXT NOT NULL,\n"                                            \
    "    key_set_url    TEXT NOT NULL,\n"                                            \
    "    registered_ms  " INT " NOT NULL,\n"                                         \
    "    PRIMARY KEY (issuer, client_id)\n"                                          \
    ");\n"

/* Version 7: the courses' rosters (LTI Names and Role Provisioning
 * Services, server/lti/lti_nrps.c). lti_rosters: a course's roster
 * address as its latest launch gave it, whether a read is asked for
 * (want) and the earliest it may start (next_ms), and how the last read
 * went (state: 0 none yet, 1 read, 2 read in part, 3 refused; message:
 * why, for the class view). lti_roster_members: who the last read listed
 * that is a student here, learner 1 for an active Learner (in the class
 * view, launched or not), 0 for the rest (inactive, teaching: never
 * shown as students, even when they once launched as learners). A
 * forgotten student leaves the roster too (a trigger of its own). */
#define V7_SCHEMA(INT)                                                               \
    "CREATE TABLE lti_rosters (\n"                                                   \
    "    class_id TEXT PRIMARY KEY, issuer TEXT NOT NULL, client_id TEXT NOT NULL,\n" \
    "    url TEXT NOT NULL, want " INT " NOT NULL DEFAULT 1,\n"                       \
    "    next_ms " INT " NOT NULL DEFAULT 0, state " INT " NOT NULL DEFAULT 0,\n"     \
    "    message TEXT NOT NULL DEFAULT '', read_ms " INT " NOT NULL DEFAULT 0);\n"    \
    "CREATE TABLE lti_roster_members (\n"                                            \
    "    class_id TEXT NOT NULL, student TEXT NOT NULL, learner " INT " NOT NULL,\n"  \
    "    PRIMARY KEY (class_id, student));\n"

#define V7_TRIGGER_SQLITE                                                            \
    "CREATE TRIGGER lti_roster_forget AFTER DELETE ON students\n"                    \
    "FOR EACH ROW BEGIN DELETE FROM lti_roster_members WHERE student = OLD.id; END;\n"

#define V7_TRIGGER_PG                                                                \
    "CREATE OR REPLACE FUNCTION lti_roster_forget() RETURNS trigger LANGUAGE plpgsql\n" \
    "AS $$ BEGIN DELETE FROM lti_roster_members WHERE student = OLD.id; RETURN OLD; END $$;\n" \
    "CREATE OR REPLACE TRIGGER lti_roster_forget AFTER DELETE ON students\n"         \
    "FOR EACH ROW EXECUTE FUNCTION lti_roster_forget();\n"

/* Version 8, of issue 34: the line item belongs to the resource link
 * (item 5), and due dates (item 6). A launch that names the platform's
 * line items (lineitems, with the lineitem scope) but no lineitem gets
 * one the tool makes, once per link:
 * made_lineitem, kept whatever later launches say, made by one sender at
 * a time (made_claim_ms, a lease, since several instances share a
 * PostgreSQL store); label is its column's title. A score waiting for its
 * link's line item to be made has lineitem '' and its link, filled in
 * when it is made. received_ms: the submission's time, the timestamp its
 * score is sent with. */
#define V8_LINEITEM_COLUMNS(INT)                                                              \
    "ALTER TABLE lti_resource_links ADD COLUMN lineitems TEXT NOT NULL DEFAULT '';\n" \
    "ALTER TABLE lti_resource_links ADD COLUMN label TEXT NOT NULL DEFAULT '';\n"   \
    "ALTER TABLE lti_resource_links ADD COLUMN made_lineitem TEXT NOT NULL DEFAULT '';\n" \
    "ALTER TABLE lti_resource_links ADD COLUMN made_claim_ms " INT " NOT NULL DEFAULT 0;\n" \
    "ALTER TABLE lti_outbox ADD COLUMN link " INT " NOT NULL DEFAULT 0;\n"          \
    "ALTER TABLE lti_outbox ADD COLUMN received_ms " INT " NOT NULL DEFAULT 0;\n"

/* Version 8's due dates (issue 34 item 6). A resource link's due date for
 * a student (lti_launches.due_ms, 0: none), from the student's latest
 * launch of it: per student, since a platform's due date may be the
 * student's own (Canvas's overrides); a record received after it is late
 * (records.late, 1), and so is its score to send (lti_outbox.late): the
 * late policy decides what a late attempt counts for
 * (server/lti/lti_ags.c). */
#define V8_DUE_COLUMNS(INT)                                                              \
    "ALTER TABLE lti_launches ADD COLUMN due_ms " INT " NOT NULL DEFAULT 0;\n"       \
    "ALTER TABLE records ADD COLUMN late " INT " NOT NULL DEFAULT 0;\n"              \
    "ALTER TABLE lti_outbox ADD COLUMN late " INT " NOT NULL DEFAULT 0;\n"

/* The link a record came from, as version 3's trigger chose it (the
 * launch its page carried, else the student's latest). */
#define RECORD_LINK                                                                  \
    " COALESCE((SELECT r.link FROM lti_record_links r WHERE r.record_id = NEW.id),"  \
    " (SELECT b.link FROM lti_launches b WHERE b.student = NEW.student"              \
    "  ORDER BY b.launched_ms DESC, b.link DESC LIMIT 1))"

#define LATE_HERE " (a.due_ms > 0 AND NEW.received_ms > a.due_ms)"

#define OUTBOX_INSERT_V8                                                             \
    "UPDATE records SET late = 1 WHERE id = NEW.id AND EXISTS (SELECT 1 FROM"        \
    " lti_launches a WHERE a.student = NEW.student AND a.link =" RECORD_LINK         \
    " AND" LATE_HERE ");"                                                            \
    "INSERT INTO lti_outbox (record_id, student, issuer, client_id, sub, lineitem,"  \
    " points, max_points, status, graded_ms, link, received_ms, late)"               \
    " SELECT NEW.id, NEW.student, k.issuer, k.client_id, u.sub,"                     \
    " CASE WHEN k.lineitem <> '' THEN k.lineitem ELSE k.made_lineitem END,"          \
    " NEW.points, NEW.max_points, NEW.status, NEW.graded_ms, k.link, NEW.received_ms," \
    " CASE WHEN" LATE_HERE " THEN 1 ELSE 0 END"                                      \
    " FROM lti_launches a JOIN lti_resource_links k ON k.link = a.link"              \
    " JOIN lti_users u ON u.student = a.student AND u.issuer = k.issuer"             \
    " WHERE a.student = NEW.student AND (k.lineitem <> '' OR k.lineitems <> '')"     \
    " AND a.link =" RECORD_LINK ";"                                                  \
    " DELETE FROM lti_record_links WHERE record_id = NEW.id;"

#define V8_TRIGGER_SQLITE                                                            \
    "DROP TRIGGER IF EXISTS lti_outbox_on_record;\n"                                 \
    "CREATE TRIGGER lti_outbox_on_record AFTER INSERT ON records\n"                  \
    "FOR EACH ROW WHEN NEW.student IS NOT NULL BEGIN " OUTBOX_INSERT_V8 " END;\n"

#define V8_TRIGGER_PG                                                                \
    "CREATE OR REPLACE FUNCTION lti_outbox_on_record() RETURNS trigger LANGUAGE plpgsql\n" \
    "AS $$ BEGIN " OUTBOX_INSERT_V8 " RETURN NEW; END $$;\n"

/* Version 9, SQLite only: LTI's trigger on the records as a gate. SQLite
 * tests a trigger's WHEN inside the trigger's own program, which it
 * starts for every row: a frame of as many registers as the whole body
 * needs (version 8's: three statements, two joins, four subqueries), made
 * and zeroed for every record, a signed-out one's too, about 10,000 of
 * the server's 370,000 instructions per record over HTTP. The gate's body
 * is one row into a view, lti_record_scores, whose INSTEAD OF trigger is
 * version 8's body, unchanged (OUTBOX_INSERT_V8, its NEW the view's row):
 * the large frame is made only for a signed-in student's record, as
 * before. PostgreSQL tests the WHEN before it calls the function: its
 * version 9 changes nothing. */
#define V9_GATE_SQLITE                                                               \
    "DROP TRIGGER IF EXISTS lti_outbox_on_record;\n"                                 \
    "CREATE VIEW lti_record_scores AS SELECT id, student, received_ms, graded_ms,"    \
    " status, points, max_points FROM records;\n"                                    \
    "CREATE TRIGGER lti_record_scores_insert INSTEAD OF INSERT ON lti_record_scores\n" \
    "FOR EACH ROW BEGIN " OUTBOX_INSERT_V8 " END;\n"                                 \
    "CREATE TRIGGER lti_outbox_on_record AFTER INSERT ON records\n"                  \
    "FOR EACH ROW WHEN NEW.student IS NOT NULL BEGIN INSERT INTO lti_record_scores"   \
    " (id, student, received_ms, graded_ms, status, points, max_points) VALUES"       \
    " (NEW.id, NEW.student, NEW.received_ms, NEW.graded_ms, NEW.status, NEW.points,"  \
    " NEW.max_points); END;\n"

#define V9_NOTHING_PG "SELECT 1;\n"

/* Version 10 (issue 33): a resource link names its exercise (a launch's
 * custom parameter exercise; store_lti_launch writes it), and a record's
 * score, and its late mark, go to a link of the record's own exercise
 * only: the link its page carried when that link is of the record's
 * exercise, else the student's latest launch from a link of it, else
 * none. A link made before is the butterfly's, the one exercise there
 * was (V10_PRIOR_TASK: what those links were, not today's default). */
#define V10_PRIOR_TASK "'butterfly'"
#define V10_LINK_EXERCISE                                                            \
    "ALTER TABLE lti_resource_links ADD COLUMN exercise TEXT NOT NULL DEFAULT "      \
    V10_PRIOR_TASK ";\n"

#define RECORD_LINK_V10                                                              \
    " COALESCE((SELECT r.link FROM lti_record_links r JOIN lti_resource_links j"     \
    "  ON j.link = r.link WHERE r.record_id = NEW.id AND j.exercise = NEW.task),"    \
    " (SELECT b.link FROM lti_launches b JOIN lti_resource_links j ON j.link = b.link" \
    "  WHERE b.student = NEW.student AND j.exercise = NEW.task"                      \
    "  ORDER BY b.launched_ms DESC, b.link DESC LIMIT 1))"

/* Version 8's body with RECORD_LINK_V10 for RECORD_LINK. */
#define OUTBOX_INSERT_V10                                                            \
    "UPDATE records SET late = 1 WHERE id = NEW.id AND EXISTS (SELECT 1 FROM"        \
    " lti_launches a WHERE a.student = NEW.student AND a.link =" RECORD_LINK_V10     \
    " AND" LATE_HERE ");"                                                            \
    "INSERT INTO lti_outbox (record_id, student, issuer, client_id, sub, lineitem,"  \
    " points, max_points, status, graded_ms, link, received_ms, late)"               \
    " SELECT NEW.id, NEW.student, k.issuer, k.client_id, u.sub,"                     \
    " CASE WHEN k.lineitem <> '' THEN k.lineitem ELSE k.made_lineitem END,"          \
    " NEW.points, NEW.max_points, NEW.status, NEW.graded_ms, k.link, NEW.received_ms," \
    " CASE WHEN" LATE_HERE " THEN 1 ELSE 0 END"                                      \
    " FROM lti_launches a JOIN lti_resource_links k ON k.link = a.link"              \
    " JOIN lti_users u ON u.student = a.student AND u.issuer = k.issuer"             \
    " WHERE a.student = NEW.student AND (k.lineitem <> '' OR k.lineitems <> '')"     \
    " AND a.link =" RECORD_LINK_V10 ";"                                              \
    " DELETE FROM lti_record_links WHERE record_id = NEW.id;"

/* SQLite: version 9's gate and view, remade with the record's task. */
#define V10_SQLITE                                                                   \
    "DROP TRIGGER IF EXISTS lti_outbox_on_record;\n"                                 \
    "DROP TRIGGER IF EXISTS lti_record_scores_insert;\n"                             \
    "DROP VIEW IF EXISTS lti_record_scores;\n"                                       \
    V10_LINK_EXERCISE                                                                \
    "CREATE VIEW lti_record_scores AS SELECT id, task, student, received_ms,"        \
    " graded_ms, status, points, max_points FROM records;\n"                         \
    "CREATE TRIGGER lti_record_scores_insert INSTEAD OF INSERT ON lti_record_scores\n" \
    "FOR EACH ROW BEGIN " OUTBOX_INSERT_V10 " END;\n"                                \
    "CREATE TRIGGER lti_outbox_on_record AFTER INSERT ON records\n"                  \
    "FOR EACH ROW WHEN NEW.student IS NOT NULL BEGIN INSERT INTO lti_record_scores"   \
    " (id, task, student, received_ms, graded_ms, status, points, max_points) VALUES" \
    " (NEW.id, NEW.task, NEW.student, NEW.received_ms, NEW.graded_ms, NEW.status,"    \
    " NEW.points, NEW.max_points); END;\n"

#define V10_PG                                                                       \
    V10_LINK_EXERCISE                                                                \
    "CREATE OR REPLACE FUNCTION lti_outbox_on_record() RETURNS trigger LANGUAGE plpgsql\n" \
    "AS $$ BEGIN " OUTBOX_INSERT_V10 " RETURN NEW; END $$;\n"

/* Version 11: a record keeps a mark for every sweep value an exercise may
 * have (EX_MAX_SWEEP, 4: butterfly16's half = 8 had none), half4 beside
 * version 3's half1..3. A record from before reads it as not run (-1):
 * its verdict is not read again (the class view's facts are columns). */
#define V11_HALF4(INT)                                                               \
    "ALTER TABLE records ADD COLUMN half4 " INT " NOT NULL DEFAULT -1;\n"

const char *const store_schema_sqlite[STORE_SCHEMA_VERSION + 1] = {
    NULL,
    V1_SCHEMA("INTEGER", "BLOB"),
    V2_SCHEMA("INTEGER", "BLOB"),
    V3_SCHEMA("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT", V3_TRIGGERS_SQLITE,
              V3_FILL_SQLITE),
    V4_SCHEMA("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT"),
    V5_KEYS_SQLITE,
    V6_SCHEMA("INTEGER"),
    V7_SCHEMA("INTEGER") V7_TRIGGER_SQLITE,
    V8_LINEITEM_COLUMNS("INTEGER") V8_DUE_COLUMNS("INTEGER") V8_TRIGGER_SQLITE,
    V9_GATE_SQLITE,
    V10_SQLITE,
    V11_HALF4("INTEGER"),
};

const char *const store_schema_pg[STORE_SCHEMA_VERSION + 1] = {
    NULL,
    V1_SCHEMA("BIGINT", "BYTEA"),
    V2_SCHEMA("BIGINT", "BYTEA"),
    V3_SCHEMA("BIGINT", "BIGSERIAL PRIMARY KEY", V3_TRIGGERS_PG, V3_FILL_PG),
    V4_SCHEMA("BIGINT", "BIGSERIAL PRIMARY KEY"),
    V5_KEYS_PG,
    V6_SCHEMA("BIGINT"),
    V7_SCHEMA("BIGINT") V7_TRIGGER_PG,
    V8_LINEITEM_COLUMNS("BIGINT") V8_DUE_COLUMNS("BIGINT") V8_TRIGGER_PG,
    V9_NOTHING_PG,
    V10_PG,
    V11_HALF4("BIGINT"),
};

/* LTI's version 1 kept one line item per student (lti_links: the latest
 * launch's). Each becomes a resource link of its own, told apart by its
 * line item (deployment '' marks one from before: no launch since has a
 * deployment ''), launched by that student, so that their scores go
 * where they went before until they launch again. */
static const char lti_v1_rows[] =
    "INSERT INTO lti_resource_links (issuer, client_id, deployment, context,"
    " resource_link, lineitem) SELECT DISTINCT issuer, client_id, '', '', lineitem,"
    " lineitem FROM lti_links;\n"
    "INSERT INTO lti_launches (student, link, launched_ms) SELECT l.student, k.link, 0"
    " FROM lti_links l JOIN lti_resource_links k ON k.issuer = l.issuer AND"
    " k.client_id = l.client_id AND k.deployment = '' AND k.context = '' AND"
    " k.resource_link = l.lineitem;\n"
    "DROP TABLE lti_links;\n";

static bool one_int(const struct store_value *c, size_t n, void *arg)
{
    if (n >= 1 && c[0].type == SV_INT)
        *(int64_t *)arg = c[0].i;
    return false;
}

static enum store_status has_table(struct store *s, const char *name, bool *yes,
                                   struct store_error *err)
{
    int64_t n = 0;
    struct store_value p = sv_text(name);
    enum store_status st = s->ops->exec(s, s->ops->has_table, false, &p, 1, one_int, &n, NULL,
                                        err);
    *yes = n > 0;
    return st;
}

/* After version 3's text, in its transaction: the rows of a store whose
 * LTI tables were made by store_lti.c before (lti_schema's version 1 or
 * 2) are kept, version 1's moved to version 2's shape; lti_schema goes. */
static enum store_status v3_adopt(struct store *s, struct store_error *err)
{
    bool links, old;
    enum store_status st = has_table(s, "lti_links", &links, err);
    if (st == STORE_OK && links)
        st = s->ops->exec(s, lti_v1_rows, true, NULL, 0, NULL, NULL, NULL, err);
    if (st == STORE_OK)
        st = has_table(s, "lti_schema", &old, err);
    if (st == STORE_OK && old)
        st = s->ops->exec(s, "DROP TABLE lti_schema", false, NULL, 0, NULL, NULL, NULL, err);
    return st;
}

store_schema_step_fn *const store_schema_after[STORE_SCHEMA_VERSION + 1] = {
    NULL, NULL, NULL, v3_adopt, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};
