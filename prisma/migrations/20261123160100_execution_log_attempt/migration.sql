-- AlterTable
ALTER TABLE "ExecutionLog" ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 1;
