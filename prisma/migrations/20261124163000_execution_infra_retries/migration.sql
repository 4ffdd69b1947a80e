-- Claims that found the previous attempt unfinished (a dead worker, a failed browser), counted
-- apart from the bot's own tries: EXECUTION_MAX_INFRA_RETRIES bounds them.
ALTER TABLE "Execution" ADD COLUMN "infraRetries" INTEGER NOT NULL DEFAULT 0;
