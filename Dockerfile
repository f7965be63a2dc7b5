# syntax=docker/dockerfile:1
# threadwise in a container: compile the TypeScript in a build stage, then run the compiled bot on a
# slim Node image as the unprivileged `node` user, with its SQLite data on a volume.
#   docker build -t threadwise .
#   docker run --env-file .env -v threadwise-data:/data threadwise
# (compose.yaml does this with Redis beside it.)

ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# sqlite3 fetches a prebuilt driver when one fits this platform, and compiles it otherwise: that
# needs Python 3, make and a C++ compiler, here only, never in the runtime image.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Everything the build needs; .dockerignore keeps out tests, data, secrets and local builds.
COPY . .
RUN npm run build \
    && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    KEYV_URL=sqlite:///data/threadwise.sqlite \
    HEALTH_PORT=9464 \
    HEALTH_HOST=0.0.0.0
WORKDIR /app
# Code and dependencies stay owned by root: the bot can read them, not change them.
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The default KEYV_URL (sqlite://data/threadwise.sqlite, relative to /app) lands on the volume too.
RUN mkdir /data && chown node:node /data && ln -s /data /app/data
VOLUME ["/data"]
USER node
EXPOSE 9464
# No curl in slim images: Node's own fetch asks /healthz (shard 0's port when sharded).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEALTH_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself, not npm: npm does not pass SIGTERM on to the bot, which then could not stop cleanly.
CMD ["node", "dist/app/main.js"]
