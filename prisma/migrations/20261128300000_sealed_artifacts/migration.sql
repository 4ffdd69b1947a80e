-- Artifacts of a run that held secret values are sealed at rest with SECRETS_KEY (docs/security.md).

-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN "sealed" BOOLEAN NOT NULL DEFAULT false;
