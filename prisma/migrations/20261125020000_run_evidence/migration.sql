-- Run evidence (contract-3 section 7): page logs, artifact sizes and steps, artifacts kept in S3.

-- AlterEnum
ALTER TYPE "LogSource" ADD VALUE 'page';

-- AlterTable
ALTER TABLE "Artifact" ALTER COLUMN "data" DROP NOT NULL,
ADD COLUMN "storageKey" TEXT,
ADD COLUMN "bytes" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "stepIndex" INTEGER;

-- Artifacts stored before sizes were kept.
UPDATE "Artifact" SET "bytes" = octet_length("data") WHERE "data" IS NOT NULL;
