import { readFile } from 'node:fs/promises';
import type { ArtifactKind, CredentialField, LogLevel, LogSource } from '@botfleet/core';
import type { RunSession, StepResult } from '../run-session';
import type { CredentialSource } from '../run-secrets';

export interface MemoryLogEntry {
  level: LogLevel;
  source: LogSource;
  message: string;
}

export interface MemoryArtifact {
  kind: ArtifactKind;
  contentType: string;
  data: Buffer;
  stepIndex?: number;
  /** What the runner asked of the store (ArtifactOptions.sealed); the data here is plain. */
  sealed: boolean;
}

/** A RunSession that keeps everything in arrays, for tests. */
export interface MemorySession extends RunSession {
  readonly steps: StepResult[];
  readonly logs: MemoryLogEntry[];
  readonly artifacts: Map<string, MemoryArtifact>;
}

export function createMemorySession(
  options: { params?: Record<string, unknown>; deadline?: number; credentials?: CredentialSource } = {},
): MemorySession {
  const steps: StepResult[] = [];
  const logs: MemoryLogEntry[] = [];
  const artifacts = new Map<string, MemoryArtifact>();
  return {
    params: options.params ?? {},
    deadline: options.deadline ?? Date.now() + 60_000,
    credentials: options.credentials,
    steps,
    logs,
    artifacts,
    recordStep: (result) => void steps.push(result),
    log: (level, source, message) => void logs.push({ level, source, message }),
    async saveArtifact(kind, contentType, content, { stepIndex, sealed = false } = {}) {
      const id = `artifact-${artifacts.size + 1}`;
      const data = Buffer.isBuffer(content) ? content : await readFile(content.path);
      artifacts.set(id, { kind, contentType, data, sealed, ...(stepIndex === undefined ? {} : { stepIndex }) });
      return id;
    },
  };
}

/**
 * A CredentialSource for tests: every credential it is asked for gives these field values and
 * may be filled on `origins` (a field it lacks fails as a stored credential without it does).
 */
export function fixedCredentials(
  values: Partial<Record<CredentialField, string>>,
  origins: readonly string[],
): CredentialSource {
  return async ({ credential, field }) => ({
    origins,
    reveal: async () => {
      const value = values[field];
      if (value === undefined) throw new Error(`credential ${credential} has no ${field}`);
      return value;
    },
  });
}
