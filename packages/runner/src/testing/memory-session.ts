import { readFile } from 'node:fs/promises';
import type { ArtifactKind, LogLevel, LogSource } from '@botfleet/core';
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
    async saveArtifact(kind, contentType, content, { stepIndex } = {}) {
      const id = `artifact-${artifacts.size + 1}`;
      const data = Buffer.isBuffer(content) ? content : await readFile(content.path);
      artifacts.set(id, { kind, contentType, data, ...(stepIndex === undefined ? {} : { stepIndex }) });
      return id;
    },
  };
}
