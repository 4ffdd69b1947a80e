-- Live runs and data out (contract-3 section 8): bot versions, the version a run ran, and the
-- time of a bot's last run for GET /bots?sort=-lastRunAt.

-- AlterTable
ALTER TABLE "Bot" ADD COLUMN "version" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN "lastRunAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN "botVersion" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "BotVersion" (
    "botId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "steps" JSONB NOT NULL DEFAULT '[]',
    "scripts" JSONB NOT NULL DEFAULT '[]',
    "manifest" JSONB NOT NULL DEFAULT '{}',
    "changes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "restoredFrom" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BotVersion_pkey" PRIMARY KEY ("botId","version")
);

-- AddForeignKey
ALTER TABLE "BotVersion" ADD CONSTRAINT "BotVersion_botId_fkey" FOREIGN KEY ("botId") REFERENCES "Bot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Bots that ran before lastRunAt was kept.
UPDATE "Bot" b SET "lastRunAt" = (SELECT max(e."createdAt") FROM "Execution" e WHERE e."botId" = b.id);
