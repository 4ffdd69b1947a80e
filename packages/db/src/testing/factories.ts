import { newId, type CreateBotInput } from '@botfleet/core';
import { createPrismaClient, type CreatePrismaClientOptions, type PrismaClient } from '../client';
import type { Bot, Execution, Organization } from '../generated/prisma/client';
import { createBot } from '../repositories/bots';
import type { Db } from '../repositories/db-handle';
import { createCompletedExecution, createExecution, type NewExecution } from '../repositories/executions';
import { saveManifest, toStoredManifest, type StoredManifest } from '../repositories/manifests';
import { ensureOrganization } from '../repositories/organizations';

/*
 * Rows for tests, written through the same repository functions the services use, so a fixture
 * cannot drift from what production writes. Tests never truncate tables: each file makes its own
 * organizations and removes what it made by organization (deleteBotsOfOrganization).
 */

/** The shared database `npm test` creates and migrates: DATABASE_URL, read when called. */
export function testDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_test';
}

/** A client on the shared test database; the caller disconnects it. */
export function createTestPrismaClient(options: CreatePrismaClientOptions = {}): PrismaClient {
  return createPrismaClient(testDatabaseUrl(), options);
}

/** An organization of the caller's own, with a unique slug. */
export function createTestOrganization(db: Db): Promise<Organization> {
  return ensureOrganization(db, newId('org').replace('_', '-'));
}

export interface TestBotInput extends Partial<CreateBotInput> {
  /** Saved over the empty manifest a new bot has. Secrets are given sealed, as the API stores them. */
  manifest?: Partial<StoredManifest>;
}

/** A bot (by default an extraction bot for https://a.example), with a manifest when given. */
export async function createTestBot(db: Db, organizationId: string, input: TestBotInput = {}): Promise<Bot> {
  const { manifest, ...fields } = input;
  const defaults = { name: 'test bot', targetUrl: 'https://a.example', kind: 'extraction' as const, tags: [] };
  const bot = await createBot(db, organizationId, { ...defaults, ...fields });
  if (manifest) await saveManifest(db, bot.id, { ...toStoredManifest(null), ...manifest });
  return bot;
}

export interface TestExecutionInput extends Partial<Omit<NewExecution, 'botId' | 'organizationId'>> {
  botId: string;
  organizationId: string;
  /** Writes the run already completed with this data, as a worker leaves it, instead of pending. */
  completed?: { extractedData: unknown };
}

/** An execution of the bot: pending (an API trigger with no params by default), or completed. */
export function createTestExecution(db: Db, input: TestExecutionInput): Promise<Execution> {
  const { completed, ...execution } = input;
  const { botId, organizationId } = input;
  if (completed) return createCompletedExecution(db, { botId, organizationId, extractedData: completed.extractedData });
  return createExecution(db, { trigger: 'api', params: {}, ...execution });
}
