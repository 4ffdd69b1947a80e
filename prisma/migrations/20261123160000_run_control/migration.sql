-- CreateEnum
CREATE TYPE "ScheduleOverlap" AS ENUM ('skip', 'allow');

-- AlterEnum
ALTER TYPE "ExecutionTrigger" ADD VALUE 'rerun';

-- AlterTable
ALTER TABLE "Bot" ADD COLUMN     "retryAttempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "retryDelaySeconds" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN     "rerunOf" TEXT;

-- AlterTable
ALTER TABLE "Schedule" ADD COLUMN     "cron" TEXT,
ADD COLUMN     "overlap" "ScheduleOverlap" NOT NULL DEFAULT 'skip',
ADD COLUMN     "params" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "timezone" TEXT NOT NULL DEFAULT 'UTC',
ALTER COLUMN "intervalSeconds" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "Execution_organizationId_createdAt_id_idx" ON "Execution"("organizationId", "createdAt" DESC, "id" DESC);
