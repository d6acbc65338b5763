#!/usr/bin/env bash
# Lets pg_basebackup and a streaming replica connect to the local PostgreSQL (127.0.0.1:5432) by
# adding one pg_hba.conf line, `host replication all 127.0.0.1/32 trust`, when no replication line
# is there, and reloading. Run as root or postgres on a test machine (CI's, a developer's): it is
# what server/src/db/replica.test.ts needs to build its replica (decision 0130). Idempotent.
set -euo pipefail
PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
hba=$(psql -h "$PGHOST" -p "$PGPORT" -U postgres -Atc 'SHOW hba_file')
if grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]' "$hba"; then
  echo "replication already allowed in $hba"
else
  printf '\n# Added by scripts/replica/allow-replication.sh: a streaming replica on this machine (tests)\nhost replication all 127.0.0.1/32 trust\n' >>"$hba"
  echo "added 'host replication all 127.0.0.1/32 trust' to $hba"
fi
psql -h "$PGHOST" -p "$PGPORT" -U postgres -Atc 'SELECT pg_reload_conf()' >/dev/null
echo "reloaded; wal_level=$(psql -h "$PGHOST" -p "$PGPORT" -U postgres -Atc 'SHOW wal_level') max_wal_senders=$(psql -h "$PGHOST" -p "$PGPORT" -U postgres -Atc 'SHOW max_wal_senders')"
