# syntax=docker/dockerfile:1
# Tollbooth's image: one Node process (the compiled server, server/dist/main.js) serving the API,
# the embedded OpenID Connect provider and the built web app on $PORT, as a non-root user that
# writes only under $DATA_DIR (a volume). Built in three stages: `build` compiles the web app and
# the server with every dependency, `deps` installs the server's production dependencies only,
# and the last stage copies just what runs. See docs/decisions/0080-the-image-compose-file-and-production-mode.md.
#
#   docker build -t tollbooth .
#   docker build --build-arg BASE_IMAGE=localhost/my-node-base -t tollbooth .   (a local base)
#
# BASE_IMAGE is any Debian-like image with node and npm on PATH and useradd (the official
# Node images are); scripts/image/build-and-serve.sh builds one with debootstrap where no
# registry of images is reachable.
ARG BASE_IMAGE=node:22-bookworm-slim

# The workspace's package manifests alone, so `npm ci` layers are rebuilt only when they change.
FROM scratch AS manifests
COPY package.json package-lock.json /
COPY contract/package.json /contract/
COPY server/package.json /server/
COPY web/package.json /web/
COPY e2e/package.json /e2e/

FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY --from=manifests / ./
RUN npm ci --workspace contract --workspace server --workspace web --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY contract contract
COPY server server
COPY web web
RUN npm run build -w web && npm run build -w server

FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests / ./
# The server's runtime dependencies only (the contract package is bundled into dist/main.js).
RUN npm ci --workspace server --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${BASE_IMAGE}
# Production mode (NODE_ENV=production): SECRET_KEY and PUBLIC_URL must be set, or the process
# refuses to start naming them. DATA_DIR is the one place it writes: the embedded database (when
# DATABASE_URL is unset), uploads, and the journal of answered calls.
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    ANSWER_JOURNAL_DIR=/data/answered-calls
WORKDIR /app
RUN groupadd --system --gid 10001 tollbooth \
 && useradd --system --uid 10001 --gid tollbooth --home-dir /data --no-create-home --shell /usr/sbin/nologin tollbooth \
 && mkdir -p /data && chown tollbooth:tollbooth /data
COPY --from=deps /app/node_modules node_modules
# Dependencies npm could not hoist (another version of one is at the root) stay beside the server.
COPY --from=deps /app/server/node_modules server/node_modules
COPY server/package.json server/
COPY --from=build /src/server/dist server/dist
# Read at run time beside the compiled server: the migrations and the Download App template.
COPY server/src/db/migrations server/src/db/migrations
COPY server/src/downloads/template server/src/downloads/template
COPY --from=build /src/web/dist web/dist
USER tollbooth
VOLUME /data
EXPOSE 8080
STOPSIGNAL SIGTERM
# `node server/dist/main.js migrate` applies pending migrations and exits (a release job);
# `... operator grant EMAIL` verifies an operator's email. The default command serves.
CMD ["node", "--max-semi-space-size=64", "--enable-source-maps", "server/dist/main.js"]
