/** What every sweeper pass takes besides the engine's dependencies. */
export interface SweepOptions {
  /** How many rows one pass looks at (default CONFIG_DEFAULTS.fixed.sweepBatchSize). */
  batchSize?: number;
  /** Only this organization's rows (tests and benchmarks share a database across queue prefixes). */
  organizationId?: string;
  /** Aborts on shutdown: the pass stops after the row at hand (the next pass redoes the rest). */
  signal?: AbortSignal;
}
