import { CONFIG_DEFAULTS } from '@botfleet/core';
import { readFileSync } from 'node:fs';
import type { ApiSettings } from '../deps';
import type { StreamSlotLimits } from './stream-slots';

/** The soft limit most Linux systems start a process with: assumed where it cannot be read. */
const ASSUMED_OPEN_FILE_LIMIT = 1024;

/**
 * Streams may use at most this share of the open-file limit: the rest stays for every other
 * request's socket, the files a request reads, and what other roles in the process open.
 */
const STREAM_SHARE_OF_OPEN_FILES = 0.5;

/** Connections to Redis an API process holds besides its database pool (producer, subscriber, queues). */
const REDIS_CONNECTIONS = 4;

/**
 * A ceiling however high the file limit (containers often allow a million): an open stream costs
 * tens of kilobytes of memory (its socket's buffers, its response, its place in the fan-out).
 */
const MAX_DERIVED_STREAMS_PER_PROCESS = 10_000;

/**
 * The soft "Max open files" of /proc/self/limits: what a process may open before accept and
 * connect fail with EMFILE. Node has no API for getrlimit; null when the text has no such line.
 */
export function parseOpenFileLimit(limits: string): number | null {
  const match = /^Max open files\s+(\S+)/m.exec(limits);
  if (!match) return null;
  if (match[1] === 'unlimited') return Number.POSITIVE_INFINITY;
  const value = Number(match[1]);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** This process's soft open-file limit, or null where /proc is not there (not Linux). */
export function readOpenFileLimit(): number | null {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}

/**
 * How many streams one process may hold: half its open-file limit, less its database pool and
 * Redis connections, so it stops taking streams well before accept() fails for everyone.
 */
export function processStreamCap(openFileLimit: number, databasePoolSize: number): number {
  const share = Math.floor(openFileLimit * STREAM_SHARE_OF_OPEN_FILES) - databasePoolSize - REDIS_CONNECTIONS;
  return Math.max(1, Math.min(MAX_DERIVED_STREAMS_PER_PROCESS, share));
}

/** The caps of an API process from its settings: the configured ones, else the defaults and the derived process cap. */
export function streamSlotLimitsOf(settings: ApiSettings): StreamSlotLimits {
  return {
    perOrganization: settings.maxStreamsPerOrg ?? CONFIG_DEFAULTS.MAX_STREAMS_PER_ORG,
    perKey: settings.maxStreamsPerKey ?? CONFIG_DEFAULTS.MAX_STREAMS_PER_KEY,
    perProcess:
      settings.maxStreamsPerProcess ??
      processStreamCap(
        readOpenFileLimit() ?? ASSUMED_OPEN_FILE_LIMIT,
        settings.databasePoolSize ?? CONFIG_DEFAULTS.DATABASE_POOL_SIZE,
      ),
  };
}
