// Public API of @botfleet/db. Other packages import from here, never from ./generated, so the
// generated client's layout can change without touching them. The functions that change an
// execution's or a delivery's state are not here but on '@botfleet/db/state' (./state.ts).
export { createPrismaClient, PrismaClient, type CreatePrismaClientOptions } from './client';
export { Prisma } from './generated/prisma/client';
export type {
  Organization,
  ApiKey,
  Bot,
  Manifest,
  RecordedStep,
  Script,
  Schedule,
  Execution,
  StepOutput,
  ExecutionLog,
  Artifact,
  WebhookDelivery,
  DeliveryAttempt,
} from './generated/prisma/client';
export * from './generated/prisma/enums';
export {
  migrate,
  pendingMigrations,
  MIGRATION_APPLICATION_NAME,
  PRISMA_MIGRATION_LOCK_KEY,
  type MigrateOptions,
  type MigrationLogger,
} from './migrator';
export { findMigrationsDir } from './migrations-dir';
export {
  createDatabaseIfMissing,
  DatabaseMissingError,
  isMissingDatabaseError,
  type CreateDatabaseOptions,
} from './create-database';
export { isUniqueViolation, translateDatabaseError } from './database-errors';
export * from './repositories';
