#!/usr/bin/env bash
# PostgreSQL's server programs (Debian's `postgresql` package: initdb, pg_ctl, postgres) for the tests that run
# Airflow's metadata database on PostgreSQL (make test-airflow; scripts/postgres_local.py starts the server).
# Installs the package where it is missing: as root with apt-get, otherwise says what to run.
set -euo pipefail

if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "PostgreSQL is needed for make test-airflow (Airflow's metadata database on PostgreSQL) and is missing:" >&2
  echo "  sudo apt-get install -y postgresql" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "PostgreSQL is missing and this is not a Debian-like system: install its server (initdb, pg_ctl) so that" >&2
  echo "/usr/lib/postgresql/<version>/bin/initdb exists." >&2
  exit 1
fi
echo "Installing PostgreSQL (apt-get install -y postgresql) for Airflow's metadata database tests ..."
# The package's own cluster (postgresql-common's 'main') is not used: the tests make their own in a temp dir.
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q postgresql >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q postgresql >/dev/null; }
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
