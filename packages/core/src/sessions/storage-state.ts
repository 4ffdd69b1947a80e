import { z } from 'zod';
import type { SecretBox } from '../secret-box';

/*
 * A profile's browser state is a Playwright storage state (`context.storageState({ indexedDB:
 * true })`): cookies of every domain, and localStorage and IndexedDB of every origin. This file
 * is its one shape: what an import must be, what a run saves, and the summary reads show, which
 * names origins and counts, never a value.
 */

/** The most a profile's state may take, as JSON: it is loaded into every run of the profile. */
export const MAX_STORAGE_STATE_BYTES = 5 * 1024 * 1024;

const CookieSchema = z.strictObject({
  name: z.string().max(4096),
  value: z.string().max(16_384),
  domain: z.string().min(1).max(253),
  path: z.string().min(1).max(2048).default('/'),
  /** Unix seconds; -1 for a session cookie. */
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
  // Chromium's partition key of a CHIPS cookie, as recent Playwright writes it.
  partitionKey: z.string().max(2048).optional(),
});

const OriginSchema = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
    } catch {
      return false;
    }
  }, 'must be an http(s) origin such as https://example.com (no path)');

const IndexedDbSchema = z.looseObject({
  name: z.string().max(1000),
  version: z.number(),
  stores: z.array(z.looseObject({ name: z.string().max(1000) })).max(1000),
});

const OriginStateSchema = z.strictObject({
  origin: OriginSchema,
  localStorage: z
    .array(z.strictObject({ name: z.string(), value: z.string() }))
    .max(100_000)
    .default([]),
  indexedDB: z.array(IndexedDbSchema).max(1000).optional(),
});

export const StorageStateSchema = z
  .strictObject({
    cookies: z.array(CookieSchema).max(10_000).default([]),
    origins: z.array(OriginStateSchema).max(10_000).default([]),
  })
  .meta({
    id: 'StorageState',
    description: 'A Playwright storage state: what `context.storageState({ indexedDB: true })` returns',
  });
export type StorageState = z.output<typeof StorageStateSchema>;

export const EMPTY_STORAGE_STATE: StorageState = Object.freeze({ cookies: [], origins: [] }) as StorageState;

/** What a profile's reads show of one origin: how much is kept, never what. */
export const ProfileOriginSchema = z
  .object({
    origin: z.string(),
    cookies: z.number().int().describe('Cookies whose domain is this origin’s host (or a parent of it)'),
    localStorageKeys: z.number().int(),
    indexedDBDatabases: z.number().int(),
  })
  .meta({ id: 'ProfileOrigin' });
export type ProfileOrigin = z.infer<typeof ProfileOriginSchema>;

/**
 * The origins of a state with their counts, sorted. Cookies are kept per domain, not per origin:
 * a cookie's origin is its domain (without the leading dot) under https when it is `secure`,
 * else http, unless an origin of the state has that host, which then counts it.
 */
export function summarizeStorageState(state: StorageState): ProfileOrigin[] {
  const byOrigin = new Map<string, ProfileOrigin>();
  const entry = (origin: string) => {
    let found = byOrigin.get(origin);
    if (!found) byOrigin.set(origin, (found = { origin, cookies: 0, localStorageKeys: 0, indexedDBDatabases: 0 }));
    return found;
  };
  const originOfHost = new Map<string, string>();
  for (const origin of state.origins) {
    const summary = entry(origin.origin);
    summary.localStorageKeys += origin.localStorage.length;
    summary.indexedDBDatabases += origin.indexedDB?.length ?? 0;
    originOfHost.set(new URL(origin.origin).hostname, origin.origin);
  }
  for (const cookie of state.cookies) {
    const host = cookie.domain.replace(/^\./, '');
    entry(originOfHost.get(host) ?? `${cookie.secure ? 'https' : 'http'}://${host}`).cookies += 1;
  }
  return [...byOrigin.values()].sort((a, b) => (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
}

/** Every cookie and storage value of a state: what must never appear anywhere but the sealed state. */
export function storageStateValues(state: StorageState): string[] {
  return [
    ...state.cookies.map((c) => c.value),
    ...state.origins.flatMap((o) => o.localStorage.map((item) => item.value)),
  ].filter((value) => value.length > 0);
}

/** When a run saves its end state back to its profile (manifest `session.persist`). */
export const SessionPersistSchema = z
  .enum(['onSuccess', 'always', 'never'])
  .describe('When a run saves its browser state as the profile’s next version (default onSuccess)');
export type SessionPersist = z.infer<typeof SessionPersistSchema>;

/** Whether a run that ended with `status` saves its state under `persist`. */
export function persistsAfter(persist: SessionPersist, status: 'completed' | 'failed' | 'timed_out' | 'cancelled') {
  if (status === 'cancelled') return false;
  return persist === 'always' || (persist === 'onSuccess' && status === 'completed');
}

/** A state larger than a profile holds (MAX_STORAGE_STATE_BYTES as JSON): nothing was sealed. */
export class StorageStateTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`it takes ${bytes} bytes as JSON; a profile holds at most ${MAX_STORAGE_STATE_BYTES}`);
    this.name = 'StorageStateTooLarge';
  }
}

/**
 * A state as a profile version keeps it, whoever saves it (an import, a reset, a run's end): its
 * JSON sealed with SECRETS_KEY and its summary. Throws StorageStateTooLarge past the bound, which
 * holds on the JSON every run of the profile loads.
 */
export function sealStorageState(box: SecretBox, state: StorageState): { stateEnc: string; origins: ProfileOrigin[] } {
  const json = JSON.stringify(state);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_STORAGE_STATE_BYTES) throw new StorageStateTooLarge(bytes);
  return { stateEnc: box.encrypt(json), origins: summarizeStorageState(state) };
}
