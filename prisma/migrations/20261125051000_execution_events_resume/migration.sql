-- The organization event stream's resume (GET /executions/events with Last-Event-ID): the
-- organization's runs changed since a time, oldest change first (docs/live-runs.md).
CREATE INDEX "Execution_organizationId_updatedAt_idx" ON "Execution"("organizationId", "updatedAt");
