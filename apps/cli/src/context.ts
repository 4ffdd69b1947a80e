import { createBotfleetClient, type Client } from '@botfleet/sdk';
import type { Output } from './output';
import { UsageError } from './usage-error';

/** What every command gets: a client for the configured API and key, and where to write. */
export interface CommandContext {
  client: Client;
  output: Output;
  /** The command's own arguments, after the command words and global flags were taken. */
  args: string[];
  /** The environment, for commands that read a secret from a variable the user names (never argv). */
  env: Record<string, string | undefined>;
  /** Standard input, for commands that read a secret from it (`--password-stdin`). */
  stdin: NodeJS.ReadableStream;
  /** Standard output as a stream, for commands that copy a download to it as it arrives. */
  stdout: NodeJS.WritableStream;
}

export interface Connection {
  url: string | undefined;
  apiKey: string | undefined;
}

/** --url / --api-key win over BOTFLEET_URL / BOTFLEET_API_KEY. */
export function clientFor({ url, apiKey }: Connection): Client {
  if (!url) throw new UsageError('No API URL: pass --url or set BOTFLEET_URL (e.g. http://localhost:3000)');
  if (!apiKey) throw new UsageError('No API key: pass --api-key or set BOTFLEET_API_KEY');
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) URL, not '${url}'`);
  return createBotfleetClient({ baseUrl: url, apiKey });
}
