#!/bin/sh
# LTI's tables of version 1 (one line item per student) migrated to
# version 2 (one per resource link) on PostgreSQL: the student's scores
# still go where version 1 sent them (issue 29 item 6; SQLite's in
# test_store_lti.c). usage: lti_migrate_pg.sh DATABASE_URL BUTTERFLY_ADMIN
set -eu
URL="$1"; ADMIN="$2"
"$ADMIN" --database "$URL" lti rotate-key >/dev/null   # makes the records and LTI's tables
# back to version 1's shape, with one launched student
psql -q -v ON_ERROR_STOP=1 "$URL" <<'SQL'
DROP TABLE lti_resource_links; DROP TABLE lti_launches; DROP TABLE lti_record_links;
UPDATE lti_schema SET version = 1;
CREATE TABLE lti_links (student TEXT PRIMARY KEY, issuer TEXT NOT NULL,
    client_id TEXT NOT NULL, sub TEXT NOT NULL, lineitem TEXT NOT NULL);
INSERT INTO lti_users VALUES ('https://p', 's-old', 'old-student');
INSERT INTO lti_links VALUES ('old-student', 'https://p', 'c', 's-old', 'https://p/li/9');
SQL
"$ADMIN" --database "$URL" lti rotate-key >/dev/null   # migrates
psql -q -v ON_ERROR_STOP=1 "$URL" -c "INSERT INTO records (id, task, student, received_ms,
    graded_ms, source, sha256, status, points, max_points, verdict, seed, grader_version)
    VALUES ('r1', 'butterfly', 'old-student', 1, 2, ''::bytea, 'x', 3, 9, 9, '{}'::bytea, 0, 'v')"
got=$(psql -q -At "$URL" -c "SELECT version FROM lti_schema" \
      -c "SELECT to_regclass('lti_links') IS NULL" \
      -c "SELECT student || ' ' || lineitem || ' ' || points FROM lti_outbox" | tr '\n' '|')
want="2|t|old-student https://p/li/9 9|"
if [ "$got" != "$want" ]; then
    echo "FAIL: got '$got', want '$want'"
    exit 1
fi
echo "ok   version 1's student is scored at their line item after the migration"
