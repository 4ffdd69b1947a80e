import { createArtifactStore, type ArtifactStore } from '@botfleet/artifacts';
import { listArtifacts, listExecutionLogs, listStepOutputs, type PrismaClient } from '@botfleet/db';
import { cancelExecution, claimExecution } from '@botfleet/db/state';
import { createTestBot, createTestExecution, useTestOrganization } from '@botfleet/db/testing';
import { startS3TestServer, type S3TestServer } from '@botfleet/testkit';
import { createDbRunSession, SupersededAttemptError } from './db-run-session';

/*
 * The worker's side of the attempt fence (docs/runs.md): a session whose write is refused stops
 * the run and takes nothing more, and content it already put in the bucket does not stay there.
 * Against real PostgreSQL and a real S3-compatible server.
 */

let db: PrismaClient;
let organizationId: string;
let s3: S3TestServer;
let store: ArtifactStore;

useTestOrganization((client, id) => {
  db = client;
  organizationId = id;
});
beforeAll(async () => {
  s3 = await startS3TestServer();
  store = createArtifactStore(s3.storeSettings);
}, 30_000);
afterAll(async () => {
  await store?.close();
  await s3?.close();
});

/** A run claimed as attempt 1, and its worker's session. */
async function claimedSession() {
  const bot = await createTestBot(db, organizationId);
  const { id: executionId } = await createTestExecution(db, { botId: bot.id, organizationId });
  expect(await claimExecution(db, executionId)).toMatchObject({ attempt: 1 });
  const session = createDbRunSession({
    db,
    executionId,
    params: {},
    deadline: Date.now() + 60_000,
    attempt: 1,
    artifactStore: store,
  });
  return { executionId, session };
}

const stepOf = (index: number) => ({
  index,
  action: 'goto',
  status: 'completed' as const,
  data: null,
  error: null,
  startedAt: Date.now(),
  durationMs: 1,
});

/** Whether the bucket still holds the object of the run's artifact. */
const inBucket = (executionId: string, artifactId: string) =>
  store.open({ data: null, storageKey: `${executionId}/${artifactId}` }).then(
    (stream) => (stream.destroy(), true),
    () => false,
  );

it('writes nothing once a newer attempt owns the run, stops, and removes what it put in the bucket', async () => {
  const { executionId, session } = await claimedSession();
  session.recordStep(stepOf(0));
  session.log('info', 'runner', 'buffered before the re-claim');
  const artifactId = await session.saveArtifact('stepScreenshot', 'image/png', Buffer.from('png'), { stepIndex: 0 });
  expect(await inBucket(executionId, artifactId)).toBe(true);

  expect(await claimExecution(db, executionId)).toMatchObject({ attempt: 2 });
  await expect(session.flush()).rejects.toBeInstanceOf(SupersededAttemptError);
  expect(session.stopped.aborted).toBe(true);
  expect(session.stopped.reason).toBeInstanceOf(SupersededAttemptError);
  expect(await inBucket(executionId, artifactId)).toBe(false);

  // Whatever the abandoned program still does reaches nothing.
  session.log('info', 'runner', 'after the re-claim');
  session.recordStep(stepOf(1));
  await expect(session.saveArtifact('screenshot', 'image/png', Buffer.from('late'))).rejects.toBeInstanceOf(
    SupersededAttemptError,
  );
  await expect(session.flush()).rejects.toBeInstanceOf(SupersededAttemptError);
  expect(() => session.throwIfSuperseded()).toThrow(SupersededAttemptError);
  expect(await listStepOutputs(db, executionId)).toEqual([]);
  expect(await listArtifacts(db, executionId)).toEqual([]);
  expect(await listExecutionLogs(db, executionId)).toEqual([]);
});

it('learns it was superseded with nothing to write, so a run waiting on a long step stops too', async () => {
  const { executionId, session } = await claimedSession();
  await session.flush();
  expect(session.stopped.aborted).toBe(false);
  await claimExecution(db, executionId);
  await expect(session.flush()).rejects.toBeInstanceOf(SupersededAttemptError);
  expect(session.stopped.aborted).toBe(true);
});

it('keeps what a cancelled run wrote and stops it, though the cancel message never came', async () => {
  const { executionId, session } = await claimedSession();
  await cancelExecution(db, organizationId, executionId);
  session.log('info', 'runner', 'before the worker knew');
  await session.flush();
  expect(session.stopped.reason).toBe('cancelled');
  expect(() => session.throwIfSuperseded()).not.toThrow();
  expect((await listExecutionLogs(db, executionId)).map((l) => l.message)).toEqual(['before the worker knew']);
});

it('removes the bucket’s copy of a refused completion’s artifacts, and keeps a cancelled one’s', async () => {
  const superseded = await claimedSession();
  const lateId = await superseded.session.saveArtifact('screenshot', 'image/png', Buffer.from('late'));
  await claimExecution(db, superseded.executionId);
  await superseded.session.discardIfSuperseded(superseded.session.drain());
  expect(await inBucket(superseded.executionId, lateId)).toBe(false);

  const cancelled = await claimedSession();
  const keptId = await cancelled.session.saveArtifact('screenshot', 'image/png', Buffer.from('kept'));
  await cancelExecution(db, organizationId, cancelled.executionId);
  await cancelled.session.discardIfSuperseded(cancelled.session.drain());
  expect(await inBucket(cancelled.executionId, keptId)).toBe(true);
});
