import type { LogLevel, StepStatus } from '@botfleet/core';
import type { ServiceEvent } from './sandbox-protocol';
import { SANDBOX_LIMITS } from './limits';
import { StepRecorder } from './step-recorder';

/*
 * @botfleet/core's LogLevelSchema and StepStatusSchema, as plain lists: this runs in the
 * sandbox thread, and loading core (zod and all) there would add ~150 ms to each thread's
 * start. The type checks below keep the lists complete.
 */
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly LogLevel[];
const STEP_STATUSES = ['completed', 'failed', 'skipped'] as const satisfies readonly StepStatus[];
const logLevelsComplete: Exclude<LogLevel, (typeof LOG_LEVELS)[number]> extends never ? true : never = true;
const stepStatusesComplete: Exclude<StepStatus, (typeof STEP_STATUSES)[number]> extends never ? true : never = true;
void logLevelsComplete;
void stepStatusesComplete;

function oneOf<T extends string>(value: unknown, choices: readonly T[], label: string): T {
  const choice = choices.find((c) => c === value);
  if (choice === undefined) throw new Error(`bad ${label}`);
  return choice;
}

/**
 * The synchronous host calls behind `log` and `step`, inside the sandbox thread. They run while
 * the script is on the stack, possibly deep in recursion, so they only check the call and
 * record what happened: `flush()` hands the events on later, from the run loop's own shallow
 * stack, to the host, which applies them to the RunSession (see ScriptHost).
 */
export class ScriptServices {
  private outbox: ServiceEvent[] = [];
  /** Checks step calls (limits, indexes); the host replays them into its own recorder. */
  private readonly steps = new StepRecorder(() => undefined, SANDBOX_LIMITS.maxSteps);
  private logLines = 0;

  constructor(private readonly deliver: (events: ServiceEvent[]) => void) {}

  call(op: string, args: readonly unknown[]): unknown {
    switch (op) {
      case 'log':
        return this.log(oneOf(args[0], LOG_LEVELS, 'log level'), String(args[1]));
      case 'step.start': {
        const name = String(args[0]).slice(0, 200);
        const at = Date.now();
        const index = this.steps.start(name, at);
        this.outbox.push({ type: 'step.start', name, at });
        return index;
      }
      case 'step.end': {
        const [index, status, data, error] = args;
        if (typeof index !== 'number') throw new Error('step.end needs a step index');
        const event = {
          type: 'step.end',
          index,
          status: oneOf(status, STEP_STATUSES, 'step status'),
          data: data ?? null,
          error: error === null ? null : String(error),
          at: Date.now(),
        } as const;
        // The data is only passed on: the host's recorder keeps it, this one checks the call.
        this.steps.finish(event.index, event.status, null, event.error, event.at);
        this.outbox.push(event);
        return undefined;
      }
      default:
        throw new Error(`unknown host call ${op}`);
    }
  }

  /** Marks steps that were still running when the script ended as failed with its error. */
  abandonSteps(error: string): void {
    const at = Date.now();
    this.steps.abandon(error, at);
    this.outbox.push({ type: 'steps.abandon', error, at });
  }

  flush(): void {
    if (this.outbox.length === 0) return;
    const events = this.outbox;
    this.outbox = [];
    this.deliver(events);
  }

  private log(level: LogLevel, message: string): undefined {
    this.logLines += 1;
    if (this.logLines > SANDBOX_LIMITS.maxLogLines) {
      if (this.logLines === SANDBOX_LIMITS.maxLogLines + 1) {
        this.outbox.push({
          type: 'log',
          level: 'warn',
          message: `Further script log lines dropped (limit ${SANDBOX_LIMITS.maxLogLines})`,
        });
      }
      return undefined;
    }
    const text =
      message.length > SANDBOX_LIMITS.maxLogMessageChars
        ? `${message.slice(0, SANDBOX_LIMITS.maxLogMessageChars)}…`
        : message;
    this.outbox.push({ type: 'log', level, message: text });
    return undefined;
  }
}
