import { reserveTestDatabase } from '@botfleet/db/testing';
import { uniqueQueuePrefix } from '@botfleet/testkit';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(__dirname, 'main.ts');
const CLI = join(__dirname, 'cli.ts');

describe('launcher', () => {
  // Not created here: the launcher must create (and migrate) a missing database itself.
  const database = reserveTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'botfleet-data-'));
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    QUEUE_PREFIX: uniqueQueuePrefix('test-launch'),
    LOG_LEVEL: 'silent',
    PORT: '0',
    // Off: parallel test files would compete for the default ops port (ops-endpoints.e2e.test.ts covers it).
    OPS_PORT: '0',
  };
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates and migrates a missing database, starts every role, answers readyz and drains on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /listening on http:\/\/localhost:(\d+) \(roles: api, worker, delivery, scheduler\)/.exec(
          chunk.toString(),
        );
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    // Ready may lag listening by a moment on a loaded machine (first database and Redis round
    // trips); an orchestrator polls the same way.
    let ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    for (const deadline = Date.now() + 20_000; ready.status !== 200 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    }
    expect(ready.status).toBe(200);
    const bots = await fetch(`http://127.0.0.1:${port}/api/v1/bots`);
    expect(bots.status).toBe(401);

    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);

  it('bootstraps an organization and key from the CLI as one JSON line', () => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', CLI, 'keys', 'create', '--org', 'acme', '--permission', 'admin', '--name', 'ops'],
      { env, encoding: 'utf8' },
    );
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^bf_[0-9A-Za-z]{43}$/),
      organization: 'acme',
      permission: 'admin',
    });

    const bad = spawnSync(
      process.execPath,
      ['--import', 'tsx', CLI, 'keys', 'create', '--org', 'acme', '--permission', 'root'],
      { env, encoding: 'utf8' },
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--permission must be read, write or admin');
  });

  it('stops with a message naming a bad variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      env: { ...env, PORT: 'eighty', ROLES: 'api,web' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toContain('PORT:');
    expect(result.stderr).toContain('ROLES:');
  });
});
