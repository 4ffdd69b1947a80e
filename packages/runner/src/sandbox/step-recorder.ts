import type { StepResult } from '../run-session';

interface OpenStep {
  name: string;
  startedAt: number;
  result?: StepResult;
}

/**
 * Turns a script's `step(name, fn)` calls into StepResults. Indexes follow the order of the
 * calls; RunSession.recordStep wants results in index order, so a step that finishes before an earlier
 * one (nested or concurrent steps) waits in `open` until everything before it is recorded.
 *
 * The sandbox thread keeps one (to check the script's calls) and the host replays the same
 * calls into another, with the thread's timestamps (`at`), to emit the results: so the host
 * can still close the open steps when it has to kill the thread.
 */
export class StepRecorder {
  private readonly steps: OpenStep[] = [];
  private flushed = 0;

  constructor(
    private readonly emit: (result: StepResult) => void,
    private readonly maxSteps: number,
  ) {}

  start(name: string, at = Date.now()): number {
    if (this.steps.length >= this.maxSteps) {
      throw new Error(`a script may record at most ${this.maxSteps} steps`);
    }
    this.steps.push({ name, startedAt: at });
    return this.steps.length - 1;
  }

  finish(index: number, status: StepResult['status'], data: unknown, error: string | null, at = Date.now()): void {
    const step = this.steps[index];
    if (!step || step.result) throw new Error(`step ${index} is not running`);
    step.result = {
      index,
      action: step.name,
      status,
      data: status === 'completed' ? data : null,
      error,
      startedAt: step.startedAt,
      durationMs: Math.max(0, at - step.startedAt),
    };
    this.flush();
  }

  /** Records every step still running as failed (the script ended while they ran). */
  abandon(error: string, at = Date.now()): void {
    this.steps.forEach((step, index) => {
      if (!step.result) this.finish(index, 'failed', null, error, at);
    });
  }

  private flush(): void {
    for (let step = this.steps[this.flushed]; step?.result; step = this.steps[this.flushed]) {
      this.emit(step.result);
      this.flushed += 1;
    }
  }
}
