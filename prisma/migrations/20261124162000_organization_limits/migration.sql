-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "maxApiKeys" INTEGER,
ADD COLUMN     "maxPendingExecutions" INTEGER,
ADD COLUMN     "maxRunningExecutions" INTEGER,
ADD COLUMN     "rateLimitPerMinute" INTEGER;
