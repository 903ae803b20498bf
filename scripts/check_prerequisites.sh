#!/usr/bin/env bash
# Checks the two prerequisites the README states (Python 3.11+, Java 17+) and says what is missing.
set -euo pipefail

python_bin=${PYTHON:-python3}
if ! command -v "$python_bin" >/dev/null 2>&1; then
  echo "window-tvf needs Python 3.11 or newer: '$python_bin' was not found on PATH." >&2
  exit 1
fi
if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "window-tvf needs Python 3.11 or newer; '$python_bin' is $("$python_bin" -V 2>&1)." >&2
  echo "Point PYTHON at a newer interpreter, e.g. 'make test PYTHON=python3.11'." >&2
  exit 1
fi

java_bin=java
[ -n "${JAVA_HOME:-}" ] && java_bin="$JAVA_HOME/bin/java"
if ! command -v "$java_bin" >/dev/null 2>&1; then
  echo "window-tvf runs Spark, which needs Java 17 or newer: no 'java' found (JAVA_HOME='${JAVA_HOME:-}')." >&2
  echo "Install a JDK or JRE 17+ (Debian/Ubuntu: 'apt-get install openjdk-17-jre-headless') or set JAVA_HOME." >&2
  exit 1
fi
# 'java -version' prints e.g. 'openjdk version "17.0.15" 2025-04-15' (or "1.8.0_392" for Java 8).
version_line=$("$java_bin" -version 2>&1 | head -n 1)
version=$(sed -E 's/.*version "([^"]+)".*/\1/' <<<"$version_line")
major=${version%%.*}
[ "$major" = 1 ] && major=$(cut -d. -f2 <<<"$version")
if ! [[ "$major" =~ ^[0-9]+$ ]] || [ "$major" -lt 17 ]; then
  echo "window-tvf runs Spark 4, which needs Java 17 or newer; found: $version_line ($java_bin)." >&2
  echo "Install a JDK or JRE 17+ or point JAVA_HOME at one." >&2
  exit 1
fi
