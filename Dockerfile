# syntax=docker/dockerfile:1
# The Strata engine as a container image (README, "Operating Strata" → "Container").
#
#   docker build -t strata .
#   docker run -p 127.0.0.1:3000:3000 -v strata-data:/var/lib/strata \
#     -e STRATA_API_KEYS='acme:ci:<a key of 16+ characters>' strata
#
# The build stage runs one script, scripts/container/build-runtime-tree.js, which CI runs too
# (test/build/runtime-tree.e2e-spec.ts): production dependencies from the lockfile, dist/ and the
# audit viewer built, test files left out. The runtime stage only copies that tree.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 is a native module: compiled here when no prebuilt binary matches this Node.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /checkout
COPY . .
RUN node scripts/container/build-runtime-tree.js --from /checkout --out /opt/strata

FROM ${NODE_IMAGE} AS runtime
# No STRATA_HOST: with STRATA_API_KEYS the engine listens on every interface; without keys it
# keeps to the container's loopback (reachable by the health check only) unless STRATA_HOST=0.0.0.0
# says otherwise, since every request would then write as tenant "default".
ENV NODE_ENV=production \
    PORT=3000 \
    STRATA_STORE=sqlite:/var/lib/strata/data/strata.db
# The tree belongs to root and is read-only to the engine; what it writes (the SQLite store, the
# signing key made on first start, the projections of an EventStoreDB engine: ./data/ by default)
# lands in the working directory, the volume.
COPY --from=build /opt/strata /opt/strata
# keys/: where a shared signing key is mounted (docker-compose.cluster.yml)
RUN mkdir -p /var/lib/strata/data /var/lib/strata/keys && chown -R node:node /var/lib/strata
WORKDIR /var/lib/strata
VOLUME ["/var/lib/strata"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "/opt/strata/scripts/container/healthcheck.js"]
# node itself is the container's first process (no npm or shell in between) and handles SIGTERM
# with its draining stop (README, "Stopping"): give `docker stop -t 30` more than its 25 s.
STOPSIGNAL SIGTERM
CMD ["node", "/opt/strata/bin/engine.js"]
