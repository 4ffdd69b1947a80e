-- CreateIndex
CREATE INDEX "Execution_completedAt_idx" ON "Execution"("completedAt");
