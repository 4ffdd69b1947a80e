import { testDatabaseUrl } from '@botfleet/db/testing';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/* The operator's CLI against the test database: `keys create` and `orgs limits`, as run by `npm run cli`. */

const CLI = join(__dirname, 'cli.ts');
const env = {
  ...process.env,
  DATABASE_URL: testDatabaseUrl(),
  LOG_LEVEL: 'silent',
  MAX_RUNNING_EXECUTIONS_PER_ORG: '',
  MAX_PENDING_EXECUTIONS_PER_ORG: '',
  MAX_API_KEYS_PER_ORG: '',
  RATE_LIMIT_PER_MINUTE: '',
};

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { env, encoding: 'utf8' });
  const lines = result.stdout.trim().split('\n').filter(Boolean);
  return { status: result.status, stderr: result.stderr, json: lines.length === 1 ? JSON.parse(lines[0]!) : undefined };
}

const slug = `limits-${randomBytes(4).toString('hex')}`;

it('sets an organization’s limits, prints them as they hold, and clears one back to the default', () => {
  expect(cli('keys', 'create', '--org', slug, '--permission', 'admin').status).toBe(0);

  const set = cli('orgs', 'limits', '--org', slug, '--max-running', '1', '--max-keys', '2', '--rate-per-minute', '600');
  expect(set.status).toBe(0);
  expect(set.json).toEqual({
    organization: slug,
    limits: {
      maxRunningExecutions: { value: 1, source: 'organization' },
      maxPendingExecutions: { value: 10_000, source: 'default' },
      maxApiKeys: { value: 2, source: 'organization' },
      rateLimitPerMinute: { value: 600, source: 'organization' },
    },
  });

  // One more key fits; the next one is refused, through the CLI as through the API.
  expect(cli('keys', 'create', '--org', slug, '--permission', 'read').status).toBe(0);
  const refused = cli('keys', 'create', '--org', slug, '--permission', 'read');
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(`limit_reached: organization ${slug} already has 2 API keys`);
  expect(refused.json).toBeUndefined();

  const cleared = cli('orgs', 'limits', '--org', slug, '--max-running', 'default', '--rate-per-minute', 'default');
  expect(cleared.status).toBe(0);
  expect(cleared.json.limits.maxRunningExecutions).toEqual({ value: null, source: 'default' });
  expect(cleared.json.limits.rateLimitPerMinute).toEqual({ value: 6000, source: 'default' });
  expect(cleared.json.limits.maxApiKeys).toEqual({ value: 2, source: 'organization' });

  // No limit option: prints them and changes nothing.
  expect(cli('orgs', 'limits', '--org', slug).json).toEqual(cleared.json);
}, 60_000);

it('refuses bad values with exit code 2 and an unknown organization with a message', () => {
  for (const [option, value] of [
    ['--max-running', '0'],
    ['--max-running', 'abc'],
    ['--max-pending', '-5'],
    ['--max-keys', '1.5'],
    ['--rate-per-minute', '1e9'],
  ] as const) {
    const bad = cli('orgs', 'limits', '--org', slug, `${option}=${value}`);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`${option} must be a whole number from 1 to`);
  }
  const unknownOption = cli('orgs', 'limits', '--org', slug, '--max-everything', '3');
  expect(unknownOption.status).toBe(2);

  const unknown = cli('orgs', 'limits', '--org', `${slug}-nope`, '--max-running', '3');
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toContain(`no organization ${slug}-nope`);
}, 60_000);
