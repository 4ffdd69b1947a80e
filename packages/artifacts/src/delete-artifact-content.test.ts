import { Writable } from 'node:stream';
import pino from 'pino';
import { createPostgresArtifactStore, type ArtifactStore } from './artifact-store';
import { deleteArtifactContent } from './delete-artifact-content';

/** A store that records what it was asked to remove, and fails when told to. */
function recordingStore(failWith?: Error): ArtifactStore & { removed: string[][] } {
  const removed: string[][] = [];
  return {
    ...createPostgresArtifactStore(),
    kind: 's3',
    removed,
    async remove(storageKeys) {
      removed.push([...storageKeys]);
      if (failWith) throw failWith;
    },
  };
}

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

const failureLog = (logger: pino.Logger) => ({
  logger,
  level: 'error' as const,
  message: "the deleted bot's artifacts could not be removed from the artifact store",
  fields: { botId: 'bot_1' },
});

it('removes the stored keys, skipping content that was kept in its row', async () => {
  const store = recordingStore();
  const { logger, lines } = recordingLogger();
  await deleteArtifactContent(store, ['exe_1/art_1', null, 'exe_1/art_2'], failureLog(logger));
  expect(store.removed).toEqual([['exe_1/art_1', 'exe_1/art_2']]);
  expect(lines).toEqual([]);
});

it('makes no request when no key is stored elsewhere, or there is no store', async () => {
  const store = recordingStore();
  const { logger } = recordingLogger();
  await deleteArtifactContent(store, [], failureLog(logger));
  await deleteArtifactContent(store, [null, null], failureLog(logger));
  expect(store.removed).toEqual([]);
  await expect(deleteArtifactContent(undefined, ['exe_1/art_1'], failureLog(logger))).resolves.toBeUndefined();
});

it('logs a removal that fails at the level given, with the owner and the reason, and does not throw', async () => {
  const store = recordingStore(new Error('S3 delete of 1 objects from s3://b (exe_1/art_1, …) failed: EHOSTUNREACH'));
  const { logger, lines } = recordingLogger();
  await expect(deleteArtifactContent(store, ['exe_1/art_1'], failureLog(logger))).resolves.toBeUndefined();
  expect(lines).toEqual([
    expect.objectContaining({
      level: 50,
      botId: 'bot_1',
      err: 'S3 delete of 1 objects from s3://b (exe_1/art_1, …) failed: EHOSTUNREACH',
      msg: "the deleted bot's artifacts could not be removed from the artifact store",
    }),
  ]);

  const warned = recordingLogger();
  await deleteArtifactContent(store, ['exe_2/art_1'], {
    logger: warned.logger,
    level: 'warn',
    message: 'could not remove an earlier attempt’s artifacts',
    fields: { executionId: 'exe_2' },
  });
  expect(warned.lines).toEqual([expect.objectContaining({ level: 40, executionId: 'exe_2' })]);
});
