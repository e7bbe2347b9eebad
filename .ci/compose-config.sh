#!/usr/bin/env bash
# Validates both compose files with `docker compose config -q` (the compose specification, the
# interpolation of ${...}, the build context) where the Docker Compose client exists; the CI
# machine may have a docker CLI without the compose plugin, or none: then it says it skipped.
# Their content (KurrentDB 25+, health checks, restart policies, the cluster's shape) is checked
# everywhere by test/build/compose-files.spec.ts.
#   bash .ci/compose-config.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! docker compose version >/dev/null 2>&1; then
  echo "docker compose config: skipped (no Docker Compose client on this machine)"
  exit 0
fi
for file in docker-compose.yml docker-compose.cluster.yml; do
  docker compose -f "$file" config -q
  echo "docker compose config: $file is valid"
done
