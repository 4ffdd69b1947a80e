-- Browser sessions (profiles) and credentials for logins with 2FA (contract-3 sections 5 and 6).

-- CreateEnum
CREATE TYPE "SessionPersist" AS ENUM ('onSuccess', 'always', 'never');

-- CreateTable
CREATE TABLE "Profile" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "lastExecutionId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Profile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProfileVersion" (
    "profileId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "stateEnc" TEXT NOT NULL,
    "origins" JSONB NOT NULL DEFAULT '[]',
    "source" TEXT NOT NULL,
    "executionId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProfileVersion_pkey" PRIMARY KEY ("profileId","version")
);

-- CreateTable
CREATE TABLE "Credential" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "username" TEXT,
    "passwordEnc" TEXT,
    "totpEnc" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Credential_pkey" PRIMARY KEY ("id")
);

-- AlterTable
ALTER TABLE "Manifest" ADD COLUMN "sessionProfileId" TEXT,
ADD COLUMN "sessionPersist" "SessionPersist" NOT NULL DEFAULT 'onSuccess';

-- AlterTable
ALTER TABLE "Execution" ADD COLUMN "profileId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Profile_organizationId_name_key" ON "Profile"("organizationId", "name");

-- CreateIndex
CREATE INDEX "Profile_organizationId_createdAt_id_idx" ON "Profile"("organizationId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Credential_organizationId_name_key" ON "Credential"("organizationId", "name");

-- CreateIndex
CREATE INDEX "Credential_organizationId_createdAt_id_idx" ON "Credential"("organizationId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Manifest_sessionProfileId_idx" ON "Manifest"("sessionProfileId");

-- CreateIndex
CREATE INDEX "Execution_profileId_status_createdAt_idx" ON "Execution"("profileId", "status", "createdAt");

-- AddForeignKey
ALTER TABLE "Profile" ADD CONSTRAINT "Profile_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ProfileVersion" ADD CONSTRAINT "ProfileVersion_profileId_fkey" FOREIGN KEY ("profileId") REFERENCES "Profile"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Credential" ADD CONSTRAINT "Credential_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Manifest" ADD CONSTRAINT "Manifest_sessionProfileId_fkey" FOREIGN KEY ("sessionProfileId") REFERENCES "Profile"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
