#!/usr/bin/env bash
# Install, start the test database, check the conformance fixtures against Node, lint,
# type-check and run the whole test suite (real model, real index, every importer).
#   usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
eval "$(scripts/postgres.sh)"
trap 'scripts/postgres.sh stop' EXIT
node conformance/generate.mjs --check
.venv/bin/ruff check memtrails tests benchmarks
.venv/bin/mypy
# Two workers (pytest-xdist): much of the suite waits on subprocesses, terminals and servers,
# so two share two cores well (22.8 -> 15.7 min here). Later arguments win: -n 0 runs in one.
.venv/bin/pytest -p no:cacheprovider -n 2 "$@"
