# botfleet: one image for every role (ROLES selects what a container runs).
#   docker build -t botfleet .
#   docker run -e ROLES=api -e DATABASE_URL=... -e REDIS_URL=... -e SECRETS_KEY=... -p 3000:3000 botfleet

# ---- build: install dependencies, generate the Prisma client, drop dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

# Manifests first so the dependency layer is cached across source changes. npm ci needs the
# package.json of every workspace: add a line here when a workspace is added.
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/delivery/package.json apps/delivery/
COPY apps/launcher/package.json apps/launcher/
COPY apps/scheduler/package.json apps/scheduler/
COPY apps/worker/package.json apps/worker/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/queue/package.json packages/queue/
COPY packages/runner/package.json packages/runner/
COPY packages/testkit/package.json packages/testkit/
COPY packages/webhooks/package.json packages/webhooks/
# npm 11 can write a lockfile `npm ci` refuses (other platforms' optional packages left out);
# `npm install` then honours the same pinned versions.
RUN npm ci || npm install --no-audit --no-fund

COPY . .
# The generator is the `prisma` dev dependency; the generated client only needs @prisma/client.
RUN npm run db:generate \
 && npm prune --omit=dev \
 && npm cache clean --force

# ---- runtime ----
FROM node:20-bookworm-slim
# Debian's chromium has the Chromium major Playwright 1.64 expects. Fonts so pages and
# screenshots render text (Latin, symbols, emoji); add fonts-noto-cjk for CJK pages.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      chromium ca-certificates fonts-liberation fonts-dejavu-core fonts-noto-color-emoji \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# DATA_DIR (.data) only holds a development secrets.key when SECRETS_KEY is unset.
RUN mkdir -p /app/.data && chown node:node /app/.data

USER node
EXPOSE 3000
# The launcher directly (not `npm start`): it receives SIGTERM itself and drains before exiting.
# It creates the database if missing and applies migrations (advisory-locked) on start.
CMD ["node", "--import", "tsx", "apps/launcher/src/main.ts"]
