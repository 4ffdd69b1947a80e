# botfleet: one image for every role (ROLES selects what a container runs).
#   docker build -t botfleet .
#   docker run -e ROLES=api -e DATABASE_URL=... -e REDIS_URL=... -e SECRETS_KEY=... -p 3000:3000 botfleet
#
# Stages: deps (npm ci from the committed lockfile) -> build (Prisma client, tsc to dist/, the
# console's static files, then dev dependencies pruned) -> runtime (Debian's Chromium, compiled
# JavaScript, non-root user).

# ---- deps: exactly the lockfile, cached across source changes ----
# Node 24 (LTS): `engines` allows 20.19+, 22.12+ and 24, and `npm test` runs a part of the suite,
# an end-to-end run included, on Node 24 (scripts/node-version.mjs); Node 20 is past its end of life.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
# Native addons (if a prebuilt binary is missing for this platform) build from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# Manifests first so this layer is reused until a dependency changes. npm ci needs the
# package.json of every workspace: add a line here when a workspace is added.
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/console/package.json apps/console/
COPY apps/delivery/package.json apps/delivery/
COPY apps/launcher/package.json apps/launcher/
COPY apps/scheduler/package.json apps/scheduler/
COPY apps/worker/package.json apps/worker/
COPY packages/artifacts/package.json packages/artifacts/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/engine/package.json packages/engine/
COPY packages/io/package.json packages/io/
COPY packages/ops/package.json packages/ops/
COPY packages/queue/package.json packages/queue/
COPY packages/runner/package.json packages/runner/
COPY packages/sdk/package.json packages/sdk/
COPY packages/testkit/package.json packages/testkit/
COPY packages/webhooks/package.json packages/webhooks/
# No fallback to `npm install`: an image must be built from the lockfile that was reviewed.
RUN npm ci --include=dev

# ---- build: Prisma client, TypeScript -> dist/, the console (Vite), then production dependencies only ----
# `npm run build` builds the console too: Vite is a dev dependency, so it must run before the prune.
FROM deps AS build
COPY . .
RUN npm run build \
 && npm prune --omit=dev \
 && npm cache clean --force \
 && rm -rf packages/*/src apps/*/src packages/*/testing.ts apps/*/testing.ts packages/core/browser.ts

# ---- runtime ----
FROM node:24-bookworm-slim AS runtime
# Debian's chromium has the Chromium major Playwright 1.64 expects. Fonts so pages and
# screenshots render text (Latin, symbols, emoji); add fonts-noto-cjk for CJK pages. tini as
# PID 1 forwards SIGTERM to node and reaps the Chromium helpers node does not wait for.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium tini ca-certificates fonts-liberation fonts-dejavu-core fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*

# `botfleet-dist` makes every @botfleet/* import resolve to its compiled dist/ entry (the
# packages' `exports`); without it they point at TypeScript sources, which the image does not hold.
ENV NODE_ENV=production \
    NODE_OPTIONS=--conditions=botfleet-dist \
    CHROMIUM_PATH=/usr/bin/chromium \
    PORT=3000 \
    OPS_PORT=9464 \
    SHUTDOWN_GRACE_SECONDS=30
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# DATA_DIR (.data) only holds a development secrets.key when SECRETS_KEY is unset.
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node
EXPOSE 3000 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
# The launcher directly (not `npm start`): it receives SIGTERM itself and drains before exiting.
# It applies pending migrations on start unless MIGRATE_ON_START=false; deployments that migrate
# with a one-off job (the Kubernetes base) run `node apps/launcher/dist/migrate-cli.js` instead,
# the compiled `npm run db:migrate`.
CMD ["node", "apps/launcher/dist/main.js"]
