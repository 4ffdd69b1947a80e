import { LogLevelSchema, StepStatusSchema, type LogLevel } from '@botfleet/core';
import type { RunSession } from '../run-session';
import { SANDBOX_LIMITS } from './limits';
import { StepRecorder } from './step-recorder';

/**
 * The synchronous host calls behind `log` and `step`. They run while the script is on the
 * stack, possibly deep in recursion, so they only record what to do: the session is called
 * later from `flush()`, on the run loop's own shallow stack, so a stack overflow can never
 * interrupt the worker's code half way.
 */
export class ScriptServices {
  private readonly outbox: Array<() => void> = [];
  private readonly steps: StepRecorder;
  private logLines = 0;

  constructor(private readonly session: RunSession) {
    this.steps = new StepRecorder((result) => this.outbox.push(() => session.recordStep(result)), SANDBOX_LIMITS.maxSteps);
  }

  call(op: string, args: readonly unknown[]): unknown {
    switch (op) {
      case 'log':
        return this.log(LogLevelSchema.parse(args[0]), String(args[1]));
      case 'step.start':
        return this.steps.start(String(args[0]).slice(0, 200));
      case 'step.end': {
        const [index, status, data, error] = args;
        if (typeof index !== 'number') throw new Error('step.end needs a step index');
        this.steps.finish(index, StepStatusSchema.parse(status), data ?? null, error === null ? null : String(error));
        return undefined;
      }
      default:
        throw new Error(`unknown host call ${op}`);
    }
  }

  /** Marks steps that were still running when the script ended as failed with its error. */
  abandonSteps(error: string): void {
    this.steps.abandon(error);
  }

  flush(): void {
    for (let effect = this.outbox.shift(); effect; effect = this.outbox.shift()) effect();
  }

  private log(level: LogLevel, message: string): undefined {
    this.logLines += 1;
    if (this.logLines > SANDBOX_LIMITS.maxLogLines) {
      if (this.logLines === SANDBOX_LIMITS.maxLogLines + 1) {
        this.outbox.push(() => this.session.log('warn', 'script', `Further script log lines dropped (limit ${SANDBOX_LIMITS.maxLogLines})`));
      }
      return undefined;
    }
    const text = message.length > SANDBOX_LIMITS.maxLogMessageChars ? `${message.slice(0, SANDBOX_LIMITS.maxLogMessageChars)}…` : message;
    this.outbox.push(() => this.session.log(level, 'script', text));
    return undefined;
  }
}
