-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "dataChanged" BOOLEAN,
ADD COLUMN     "dataHash" TEXT;

-- AlterTable
ALTER TABLE "Manifest" ADD COLUMN     "webhookDisabledAt" TIMESTAMPTZ(3),
ADD COLUMN     "webhookDisabledReason" TEXT,
ADD COLUMN     "webhookFailingSince" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "event" TEXT NOT NULL DEFAULT 'execution.completed',
ADD COLUMN     "seriesFirstAttempt" INTEGER NOT NULL DEFAULT 1;

-- DropIndex
DROP INDEX "WebhookDelivery_botId_idx";

-- CreateIndex
CREATE INDEX "WebhookDelivery_botId_createdAt_id_idx" ON "WebhookDelivery"("botId", "createdAt" DESC, "id" DESC);
