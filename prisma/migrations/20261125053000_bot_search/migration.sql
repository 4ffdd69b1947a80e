-- Bot search (contract-3 section 8): GET /bots?q=&tag=&status=&sort= (packages/db/src/repositories/bot-list.ts).

-- Trigram indexes answer `ILIKE '%...%'`. pg_trgm ships with PostgreSQL (contrib) and is a trusted
-- extension, so the migrating user needs CREATE on the database, not superuser; managed services
-- (RDS, Cloud SQL, Supabase, Neon) offer it. Created in the schema the tables live in.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- q: a search is a BitmapOr of the three. One index each rather than one of three columns: the
-- planner costs a multicolumn GIN scan by the whole index's size and chose a sequential scan
-- over it at 100,000 bots for a name found 100 times.
CREATE INDEX "Bot_name_idx" ON "Bot" USING GIN ("name" gin_trgm_ops);
CREATE INDEX "Bot_id_idx" ON "Bot" USING GIN ("id" gin_trgm_ops);
CREATE INDEX "Bot_targetUrl_idx" ON "Bot" USING GIN ("targetUrl" gin_trgm_ops);

-- tag: `tags @> ARRAY[...]`.
CREATE INDEX "Bot_tags_idx" ON "Bot" USING GIN ("tags");

-- sort=name: the page order itself (ties broken by id).
CREATE INDEX "Bot_organizationId_name_id_idx" ON "Bot"("organizationId", "name", "id");

-- sort=-lastRunAt: the page order itself, bots that never ran last. NULLS LAST, unlike Prisma's
-- DESC (NULLS FIRST), so the never-run bots are one range at the end of the organization's entries.
CREATE INDEX "Bot_organizationId_lastRunAt_id_idx" ON "Bot"("organizationId", "lastRunAt" DESC NULLS LAST, "id" DESC);

-- Bot.lastRunAt follows every INSERT into "Execution" (single trigger, batch, rerun, schedule tick,
-- and any path added later), once per statement: a batch of 1,000 runs updates its bot once. It
-- only moves forward, so concurrent inserts cannot set an older time, and it is not moved back
-- when retention (or a bot's runs' deletion) removes the newest executions: it is when the bot
-- last ran, not which run is still kept (GET /bots shows that one as lastExecution).
-- Cost (scripts/bench/bot-search.ts): one run at a time, none measurable; runs of one bot created
-- concurrently wait for each other's commit on the bot's row (about half the inserts per second
-- of the same bot, 8 at a time, in the bench; a batch is one statement and one update).
CREATE FUNCTION "Execution_sets_Bot_lastRunAt"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Bot" b
     SET "lastRunAt" = n."createdAt"
    FROM (SELECT "botId", max("createdAt") AS "createdAt" FROM new_executions GROUP BY "botId") n
   WHERE b.id = n."botId" AND (b."lastRunAt" IS NULL OR b."lastRunAt" < n."createdAt");
  RETURN NULL;
END
$$;

CREATE TRIGGER "Execution_sets_Bot_lastRunAt"
  AFTER INSERT ON "Execution"
  REFERENCING NEW TABLE AS new_executions
  FOR EACH STATEMENT EXECUTE FUNCTION "Execution_sets_Bot_lastRunAt"();

-- Runs created between the backfill in 20261125050000 and this trigger.
UPDATE "Bot" b SET "lastRunAt" = x."createdAt"
  FROM (SELECT "botId", max("createdAt") AS "createdAt" FROM "Execution" GROUP BY "botId") x
 WHERE b.id = x."botId" AND (b."lastRunAt" IS NULL OR b."lastRunAt" < x."createdAt");
