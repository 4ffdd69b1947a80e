import { newId, selectDataPath, type CreateBotInput } from '@botfleet/core';
import { createPrismaClient, type CreatePrismaClientOptions, type PrismaClient } from '../client';
import { Prisma, type Bot, type Execution, type Organization } from '../generated/prisma/client';
import { createBot } from '../repositories/bots';
import { detectDataChange, saveDataChange } from '../repositories/data-changes';
import type { Db } from '../repositories/db-handle';
import { createEventDeliveries } from '../repositories/event-deliveries';
import { newArtifactId } from '../repositories/execution-lifecycle';
import { createExecution, type NewExecution } from '../repositories/executions';
import { inTransaction } from '../repositories/in-transaction';
import { loadManifest, saveManifest, toStoredManifest, type StoredManifest } from '../repositories/manifests';
import { ensureOrganization } from '../repositories/organizations';
import type { ArtifactRecord, ProgressBatch } from '../repositories/progress-batch';
import { insertProgressRows } from '../repositories/progress-rows';

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
  // The manifest is part of what the bot is created with: its version 1 holds it.
  return createBot(db, organizationId, { ...defaults, ...fields }, async (tx, botId) => {
    if (manifest) await saveManifest(tx, botId, { ...toStoredManifest(null), ...manifest });
  });
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

/** A run that already completed with this data, as a worker leaves it. */
export interface CompletedExecution {
  botId: string;
  organizationId: string;
  extractedData: unknown;
}

/**
 * Writes an execution that is already completed, for fixtures and benchmarks that stand in for
 * a worker's run. Real runs go pending -> running -> completed through the lifecycle functions.
 */
export async function createCompletedExecution(db: Db, input: CompletedExecution) {
  const now = new Date();
  return db.execution.create({
    data: {
      id: newId('exe'),
      botId: input.botId,
      organizationId: input.organizationId,
      status: 'completed',
      startedAt: now,
      completedAt: now,
      extractedData:
        input.extractedData === null || input.extractedData === undefined
          ? Prisma.DbNull
          : (input.extractedData as Prisma.InputJsonValue),
    },
  });
}

export interface CompletedExecutionInput {
  executionId: string;
  botId: string;
  extractedData: unknown;
}

/**
 * The first delivery of a completion (without change detection), created as endExecutionAttempt
 * creates them: inside the completing transaction, body fixed here. Null when the bot has no
 * webhook, it is disabled, it does not subscribe to `execution.completed`, or there is no data.
 */
export async function createDeliveryForCompletedExecution(
  db: Db,
  input: CompletedExecutionInput,
): Promise<{ id: string } | null> {
  const facts = { executionId: input.executionId, botId: input.botId, endedAt: new Date() };
  const [id] = await createEventDeliveries(db, facts, { status: 'completed', data: input.extractedData, change: null });
  return id ? { id } : null;
}

/**
 * A completed execution and its deliveries, written together as a worker's completion writes
 * them (change detection included), for fixtures and benchmarks that stand in for a run.
 * `deliveryId` is the first of `deliveryIds`, null when there is none.
 */
export async function createCompletedExecutionWithDelivery(
  db: Db,
  input: CompletedExecution,
): Promise<{ executionId: string; deliveryId: string | null; deliveryIds: string[] }> {
  return inTransaction(db, async (tx) => {
    const execution = await createCompletedExecution(tx, input);
    const manifest = await loadManifest(tx, input.botId);
    const hasData = input.extractedData !== null && input.extractedData !== undefined;
    const change = hasData
      ? await detectDataChange(tx, {
          botId: input.botId,
          executionId: execution.id,
          narrowedData: selectDataPath(input.extractedData, manifest.webhook?.dataPath) ?? null,
        })
      : null;
    if (change) await saveDataChange(tx, execution.id, change);
    const facts = { executionId: execution.id, botId: input.botId, endedAt: execution.completedAt ?? new Date() };
    const deliveryIds = await createEventDeliveries(
      tx,
      facts,
      { status: 'completed', data: input.extractedData, change },
      manifest,
    );
    return { executionId: execution.id, deliveryId: deliveryIds[0] ?? null, deliveryIds };
  });
}

/**
 * Puts a run's step outputs, logs and artifacts in place for any execution, whatever its state or
 * attempt: a fixture. A run's own writes are fenced to its attempt (writeProgress).
 */
export function seedProgress(db: Db, executionId: string, batch: ProgressBatch): Promise<void> {
  return insertProgressRows(db, executionId, batch);
}

/** An artifact record whose bytes live in its row (ARTIFACT_STORE=postgres), for seedProgress. */
export function artifactInRow(kind: string, contentType: string, data: Buffer): ArtifactRecord {
  return { id: newArtifactId(), kind, contentType, data, storageKey: null, bytes: data.length };
}
