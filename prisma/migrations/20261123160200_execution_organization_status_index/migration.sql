-- CreateIndex
CREATE INDEX "Execution_organizationId_status_idx" ON "Execution"("organizationId", "status");
