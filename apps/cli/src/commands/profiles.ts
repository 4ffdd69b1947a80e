import {
  createProfile,
  deleteProfile,
  exportProfileState,
  getProfile,
  importProfileState,
  listProfiles,
  listProfileVersions,
  resetProfile,
  updateProfile,
  type Profile,
  type ProfileVersion,
  type StorageStateInput,
} from '@botfleet/sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { print, table, timestamp } from '../output';
import { UsageError } from '../usage-error';

/*
 * `botfleet profiles ...`: browser profiles, whose state (cookies, localStorage, IndexedDB) runs
 * of the bots that name them start from. Reads show origins and counts; only `export` (admin key)
 * prints the values, and only `import` (admin key) sends them.
 */

function describeProfile(profile: Profile): string {
  const origins = profile.origins.map((o) => [
    o.origin,
    String(o.cookies),
    String(o.localStorageKeys),
    String(o.indexedDBDatabases),
  ]);
  return [
    table([
      ['id', profile.id],
      ['name', profile.name],
      ['description', profile.description ?? '-'],
      ['version', String(profile.version)],
      ['lastExecutionId', profile.lastExecutionId ?? '-'],
      ['updatedAt', timestamp(profile.updatedAt)],
    ]),
    origins.length === 0
      ? 'No saved state.'
      : table([['ORIGIN', 'COOKIES', 'LOCAL STORAGE KEYS', 'INDEXEDDB DATABASES'], ...origins]),
  ].join('\n\n');
}

/** The profile id a command takes first, and the positionals after it. */
function profileIdOf(positionals: string[], command: string): { profileId: string; rest: string[] } {
  const [profileId, ...rest] = positionals;
  if (!profileId) throw new UsageError(`${command} takes a profile id`);
  return { profileId, rest };
}

/** A command that takes one profile id and nothing else. */
function onlyProfileId(args: string[], command: string): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const { profileId, rest } = profileIdOf(positionals, command);
  if (rest.length > 0) throw new UsageError(`${command} takes one profile id`);
  return profileId;
}

/** `botfleet profiles list [--limit n] [--cursor c]`: one page, newest first. */
export async function listProfilesCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({ args, options: { limit: { type: 'string' }, cursor: { type: 'string' } } });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  const { data } = await listProfiles({ client, query: { limit, cursor: values.cursor }, throwOnError: true });
  print(output, data, (page) => {
    if (page.data.length === 0) return 'No profiles.';
    const rows = page.data.map((p: Profile) => [p.id, String(p.version), String(p.origins.length), p.name]);
    const more = page.nextCursor ? `\nMore: botfleet profiles list --cursor ${page.nextCursor}` : '';
    return table([['ID', 'VERSION', 'ORIGINS', 'NAME'], ...rows]) + more;
  });
}

/** `botfleet profiles get <profileId>`: the profile with its origins and counts (never values). */
export async function getProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const profileId = onlyProfileId(args, 'profiles get');
  const { data } = await getProfile({ client, path: { profileId }, throwOnError: true });
  print(output, data, describeProfile);
}

/** `botfleet profiles create --name N [--description D]`: an empty profile. */
export async function createProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, description: { type: 'string' } } });
  if (!values.name) throw new UsageError('profiles create needs --name');
  const { data } = await createProfile({
    client,
    body: { name: values.name, ...(values.description ? { description: values.description } : {}) },
    throwOnError: true,
  });
  print(output, data, describeProfile);
}

/** `botfleet profiles rename <profileId> --name N`. */
export async function renameProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' } } });
  const { profileId, rest } = profileIdOf(positionals, 'profiles rename');
  if (rest.length > 0) throw new UsageError('profiles rename takes one profile id');
  if (!values.name) throw new UsageError('profiles rename needs --name');
  const { data } = await updateProfile({
    client,
    path: { profileId },
    body: { name: values.name },
    throwOnError: true,
  });
  print(output, data, describeProfile);
}

/** `botfleet profiles delete <profileId>`: refused by the API while a bot or a run uses it. */
export async function deleteProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const profileId = onlyProfileId(args, 'profiles delete');
  await deleteProfile({ client, path: { profileId }, throwOnError: true });
  print(output, { id: profileId, deleted: true }, () => `Deleted ${profileId}`);
}

/** `botfleet profiles reset <profileId>`: empties it, as its next version. */
export async function resetProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const profileId = onlyProfileId(args, 'profiles reset');
  const { data } = await resetProfile({ client, path: { profileId }, throwOnError: true });
  print(output, data, describeProfile);
}

/**
 * `botfleet profiles export <profileId> [--out state.json]` (admin key): the latest state as
 * Playwright storage-state JSON, on standard output or in a file only its owner may read. It holds
 * live sessions: treat it as a password.
 */
export async function exportProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { out: { type: 'string' } } });
  const { profileId, rest } = profileIdOf(positionals, 'profiles export');
  if (rest.length > 0) throw new UsageError('profiles export takes one profile id');
  const { data } = await exportProfileState({ client, path: { profileId }, throwOnError: true });
  const json = JSON.stringify(data, null, 2);
  if (values.out === undefined) {
    output.out(json);
    return;
  }
  writeFileSync(values.out, `${json}\n`, { mode: 0o600 });
  print(
    output,
    { profileId, out: values.out, cookies: data.cookies.length, origins: data.origins.length },
    (written) => `Wrote ${written.out} (${written.cookies} cookies, ${written.origins} origins)`,
  );
}

/**
 * `botfleet profiles import <profileId> <state.json>` (admin key): a Playwright storage state
 * (`browserContext.storageState()` saved to a file, or an export) as the profile's next version.
 */
export async function importProfileCommand({ client, output, args }: CommandContext): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const { profileId, rest } = profileIdOf(positionals, 'profiles import');
  const [file, ...extra] = rest;
  if (!file || extra.length > 0) throw new UsageError('profiles import takes a profile id and one state file (JSON)');
  let state: StorageStateInput;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as StorageStateInput;
  } catch (err) {
    throw new UsageError(`Cannot read ${file} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { data } = await importProfileState({ client, path: { profileId }, body: state, throwOnError: true });
  print(output, data, describeProfile);
}

/** `botfleet profiles versions <profileId>`: the kept states, newest first. */
export async function profileVersionsCommand({ client, output, args }: CommandContext): Promise<void> {
  const profileId = onlyProfileId(args, 'profiles versions');
  const { data } = await listProfileVersions({ client, path: { profileId }, throwOnError: true });
  print(output, data.data, (versions) => {
    if (versions.length === 0) return 'No saved state.';
    const rows = versions.map((v: ProfileVersion) => [
      String(v.version),
      v.source,
      v.executionId ?? '-',
      String(v.origins.length),
      timestamp(v.createdAt),
    ]);
    return table([['VERSION', 'SOURCE', 'EXECUTION', 'ORIGINS', 'CREATED'], ...rows]);
  });
}
