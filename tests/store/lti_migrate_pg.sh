#!/bin/sh
# A store of schema version 2 whose LTI tables are LTI's own version 1
# (one line item per student, made by store_lti.c before the tables
# joined the migrations) migrated to the current schema on PostgreSQL: the
# student's scores still go where version 1 sent them (issue 29 item 6,
# issue 30; SQLite's in test_store_lti.c).
# usage: lti_migrate_pg.sh DATABASE_URL BUTTERFLY_ADMIN
set -eu
URL="$1"; ADMIN="$2"
"$ADMIN" --database "$URL" lti rotate-key >/dev/null   # makes the records and LTI's tables
# back to schema version 2 with LTI's version 1 beside it, one launched student
psql -q -v ON_ERROR_STOP=1 "$URL" <<'SQL'
ALTER TABLE records DROP COLUMN shown_key, DROP COLUMN shown_label, DROP COLUMN half1,
    DROP COLUMN half2, DROP COLUMN half3;
ALTER TABLE lti_outbox DROP COLUMN link, DROP COLUMN received_ms, DROP COLUMN late;
ALTER TABLE records DROP COLUMN late;
ALTER TABLE records DROP COLUMN half4;   -- version 11's
UPDATE schema_version SET version = 2;
DROP TABLE identity_changes;   -- version 4's
DROP TABLE idempotency_keys; DROP FUNCTION idempotency_keys_on_delete CASCADE;   -- version 5's
DROP TABLE lti_registration_tokens; DROP TABLE lti_platforms;   -- version 6's
DROP TABLE lti_rosters; DROP TABLE lti_roster_members;   -- version 7's
DROP TABLE lti_resource_links; DROP TABLE lti_launches; DROP TABLE lti_record_links;
CREATE TABLE lti_schema (version BIGINT NOT NULL);
INSERT INTO lti_schema VALUES (1);
CREATE TABLE lti_links (student TEXT PRIMARY KEY, issuer TEXT NOT NULL,
    client_id TEXT NOT NULL, sub TEXT NOT NULL, lineitem TEXT NOT NULL);
INSERT INTO lti_users VALUES ('https://p', 's-old', 'old-student');
INSERT INTO lti_links VALUES ('old-student', 'https://p', 'c', 's-old', 'https://p/li/9');
SQL
"$ADMIN" --database "$URL" lti rotate-key >/dev/null   # migrates
psql -q -v ON_ERROR_STOP=1 "$URL" -c "INSERT INTO records (id, task, student, received_ms,
    graded_ms, source, sha256, status, points, max_points, verdict, seed, grader_version)
    VALUES ('r1', 'butterfly', 'old-student', 1, 2, ''::bytea, 'x', 3, 9, 9, '{}'::bytea, 0, 'v')"
got=$(psql -q -At "$URL" -c "SELECT version >= 3 FROM schema_version" \
      -c "SELECT to_regclass('lti_links') IS NULL AND to_regclass('lti_schema') IS NULL" \
      -c "SELECT student || ' ' || lineitem || ' ' || points FROM lti_outbox" | tr '\n' '|')
want="t|t|old-student https://p/li/9 9|"
if [ "$got" != "$want" ]; then
    echo "FAIL: got '$got', want '$want'"
    exit 1
fi
echo "ok   version 1's student is scored at their line item after the migration"
