# Sourced by .ci/run: a throwaway PostgreSQL server on loopback for the test run.
#
# Installs Debian's postgresql when it is missing, creates a cluster in a temporary
# directory (owned by the postgres user when we are root, since the server refuses to
# run as root), starts it on 127.0.0.1 on a free port with trust authentication (it
# listens on loopback only and lives for this run), creates the database and exports
#   TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:PORT/hearts_test
# The server is stopped and its directory removed when the calling shell exits.

pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    [ -n "$dir" ] && [ -x "$dir/initdb" ] && echo "$dir"
}

if [ -z "$(pg_bin)" ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq postgresql
fi
PG_BIN=$(pg_bin)
PG_DIR=$(mktemp -d /tmp/hearts-pg.XXXXXX)
PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$PG_DIR"
    as_pg() { runuser -u postgres -- "$@"; }
else
    as_pg() { "$@"; }
fi
as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-locale >"$PG_DIR/initdb.log"
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off -c max_connections=200" start >/dev/null
stop_postgres() {
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
}
trap stop_postgres EXIT
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres hearts_test
export TEST_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:$PG_PORT/hearts_test"
echo "PostgreSQL for the tests: $TEST_DATABASE_URL"
