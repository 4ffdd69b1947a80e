import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(__dirname, '..', '..', 'bin', 'botfleet.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** BOTFLEET_API_KEY; the key the CLI was made with unless given ('' runs without one). */
  key?: string | undefined;
  /** Standard input, e.g. a password for --password-stdin; empty unless given. */
  stdin?: string | undefined;
  /** More variables; they win over BOTFLEET_URL and BOTFLEET_API_KEY. */
  env?: Record<string, string> | undefined;
}

/** The `botfleet` command as a script runs it: a child process against one API. */
export interface BotfleetCli {
  /** Runs `botfleet ...args`; a failing command resolves too, with its exit code. */
  run(args: string[], options?: CliRunOptions): Promise<CliResult>;
  /** Runs a command that must succeed with --json and parses what it printed. */
  json<T>(args: string[], options?: CliRunOptions): Promise<T>;
}

export function botfleetCli(baseUrl: string, defaultKey: string): BotfleetCli {
  const run = (args: string[], options: CliRunOptions = {}) => {
    const env = {
      ...process.env,
      BOTFLEET_URL: baseUrl,
      BOTFLEET_API_KEY: options.key ?? defaultKey,
      ...options.env,
    };
    return new Promise<CliResult>((resolve) => {
      const child = execFile(process.execPath, [BIN, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
      child.stdin?.end(options.stdin ?? '');
    });
  };
  return {
    run,
    json: async <T>(args: string[], options?: CliRunOptions) =>
      jsonOutput<T>(args, await run([...args, '--json'], options)),
  };
}

/** What a --json command printed, or an error naming the command if it failed. */
export function jsonOutput<T>(args: string[], result: CliResult): T {
  if (result.code !== 0) throw new Error(`botfleet ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The API alone on a port of 127.0.0.1, for commands that need no worker, and a folder for files. */
export interface CliApiFixture {
  api: ApiHarness;
  org: TestOrg;
  /** A fresh temporary folder for the files commands read and write. */
  dir: string;
  /** The CLI against this API, with the organization's write key by default. */
  cli: BotfleetCli;
  close(): Promise<void>;
}

export async function startCliApiFixture(name: string): Promise<CliApiFixture> {
  const api = await createApiHarness();
  const org = await api.newOrg();
  const { port } = await api.listen();
  const dir = mkdtempSync(join(tmpdir(), `botfleet-cli-${name}-`));
  return {
    api,
    org,
    dir,
    cli: botfleetCli(`http://127.0.0.1:${port}`, org.keys.write),
    async close() {
      rmSync(dir, { recursive: true, force: true });
      await api.close();
    },
  };
}
