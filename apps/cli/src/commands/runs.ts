import {
  ExecutionWaitTimeout,
  followExecutionEvents,
  followOrganizationEvents,
  getExecution,
  getExtract,
  getFailure,
  getManifest,
  listExecutionDeliveries,
  listLogs,
  triggerExecution,
  waitForExecution,
  type Execution,
  type ExecutionStatus,
  type Failure,
  type OrganizationStreamEvent,
  type RunStreamEvent,
} from '@botfleet/sdk';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { EXIT, type ExitCode } from '../exit-codes';
import { print, table, timestamp } from '../output';
import { parseParamPairs, typedParams } from '../params';
import { UsageError } from '../usage-error';

/** What `runs trigger --wait` and `runs get` report: the run, and its data or why it failed. */
interface RunReport {
  execution: Execution;
  data?: unknown;
  failure?: Failure;
}

function oneId(positionals: string[], what: string, command: string): string {
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) throw new UsageError(`${command} takes one ${what}`);
  return id;
}

function describeRun({ execution, data, failure }: RunReport): string {
  const lines = [
    table([
      ['execution', execution.id],
      ['bot', execution.botId],
      ['status', execution.status],
      ['trigger', execution.trigger],
      ['createdAt', timestamp(execution.createdAt)],
      ['duration', execution.duration === null ? '-' : `${execution.duration} ms`],
    ]),
  ];
  if (data !== undefined) lines.push(`data: ${JSON.stringify(data, null, 2)}`);
  if (failure) {
    lines.push(`error: ${failure.error}`);
    if (failure.stepIndex !== null) lines.push(`failed step: ${failure.stepIndex + 1}`);
    if (failure.screenshotUrl) lines.push(`screenshot: ${failure.screenshotUrl}`);
  }
  return lines.join('\n');
}

/** The run with what it produced: its data when it completed with some, its failure when it failed. */
async function reportOf({ client }: CommandContext, execution: Execution): Promise<RunReport> {
  if (execution.status === 'failed') {
    const { data } = await getFailure({ client, path: { executionId: execution.id }, throwOnError: true });
    return { execution, failure: data };
  }
  if (execution.status === 'completed') {
    // A completed action bot has no data: the API answers 404 then, which is not an error here.
    const result = await getExtract({ client, path: { executionId: execution.id } }).catch(() => undefined);
    return result?.data ? { execution, data: result.data.data } : { execution };
  }
  return { execution };
}

const outcome = (execution: Execution): ExitCode =>
  execution.status === 'completed'
    ? EXIT.ok
    : execution.status === 'pending' || execution.status === 'running'
      ? EXIT.ok
      : EXIT.runFailed;

/**
 * `botfleet runs trigger <botId> [--params k=v]... [--wait [--timeout s]]`. Without --wait it
 * prints the execution id and exits 0 once the run is queued; with --wait it exits 1 when the run
 * ends failed or cancelled, 5 when it is still going after --timeout seconds.
 */
export async function triggerRunCommand(context: CommandContext): Promise<ExitCode> {
  const { client, output, args } = context;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      params: { type: 'string', multiple: true, short: 'p' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
  });
  const botId = oneId(positionals, 'bot id', 'runs trigger');
  const timeoutSeconds = values.timeout === undefined ? 300 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError('--timeout is a number of seconds');
  const given = parseParamPairs(values.params ?? []);
  let params: Record<string, unknown> = given;
  if (Object.keys(given).length > 0) {
    const { data: manifest } = await getManifest({ client, path: { botId }, throwOnError: true });
    params = typedParams(given, manifest.parameters);
  }
  const { data: receipt } = await triggerExecution({
    client,
    path: { botId },
    body: Object.keys(params).length > 0 ? { params } : {},
    ...(values['idempotency-key'] ? { headers: { 'Idempotency-Key': values['idempotency-key'] } } : {}),
    throwOnError: true,
  });
  if (!values.wait) {
    print(output, receipt, (r) => r.executionId);
    return EXIT.ok;
  }
  try {
    const execution = await waitForExecution(client, receipt.executionId, { timeoutMs: timeoutSeconds * 1000 });
    print(output, await reportOf(context, execution), describeRun);
    return outcome(execution);
  } catch (err) {
    if (!(err instanceof ExecutionWaitTimeout)) throw err;
    print(output, { execution: err.execution }, describeRun);
    output.err(err.message);
    return EXIT.timeout;
  }
}

/** `botfleet runs get <executionId>`: the run, with its data or failure once it ended. */
export async function getRunCommand(context: CommandContext): Promise<ExitCode> {
  const { client, output, args } = context;
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const executionId = oneId(positionals, 'execution id', 'runs get');
  const { data: execution } = await getExecution({ client, path: { executionId }, throwOnError: true });
  print(output, await reportOf(context, execution), describeRun);
  return outcome(execution);
}

/** `botfleet runs logs <executionId>`: runner, script and system logs in order. */
export async function runLogsCommand({ client, output, args }: CommandContext): Promise<ExitCode> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const executionId = oneId(positionals, 'execution id', 'runs logs');
  const { data } = await listLogs({ client, path: { executionId }, throwOnError: true });
  print(output, data.data, (lines) =>
    lines
      .map((line) => `${timestamp(line.timestamp)} ${line.level.padEnd(5)} ${line.source.padEnd(6)} ${line.message}`)
      .join('\n'),
  );
  return EXIT.ok;
}

/** `botfleet runs deliveries <executionId>`: the webhook deliveries of a run, with every attempt. */
export async function runDeliveriesCommand({ client, output, args }: CommandContext): Promise<ExitCode> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const executionId = oneId(positionals, 'execution id', 'runs deliveries');
  const { data } = await listExecutionDeliveries({ client, path: { executionId }, throwOnError: true });
  print(output, data.data, (deliveries) =>
    deliveries.length === 0
      ? 'No deliveries.'
      : table([
          ['ID', 'STATUS', 'ATTEMPTS', 'URL', 'LAST ERROR'],
          ...deliveries.map((d) => [d.id, d.status, String(d.attemptCount), d.url, d.lastError ?? '-']),
        ]),
  );
  return EXIT.ok;
}

const STATUSES: readonly ExecutionStatus[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];

/** A signal that aborts on Ctrl-C (or SIGTERM): a watch ends cleanly instead of dying mid-line. */
function interruption(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

function describeRunEvent(event: RunStreamEvent): string {
  switch (event.event) {
    case 'status': {
      const run = event.data;
      return `${timestamp(Date.now())} status ${run.status} (attempt ${run.attempt})`;
    }
    case 'step': {
      const step = event.data;
      const error = step.error ? `: ${step.error}` : '';
      return `${timestamp(step.startedAt)} step   ${step.index + 1} ${step.action} ${step.status} ${step.duration} ms${error}`;
    }
    case 'log': {
      const line = event.data;
      return `${timestamp(line.timestamp)} log    ${line.level.padEnd(5)} ${line.source.padEnd(6)} ${line.message}`;
    }
    case 'end':
      return `${timestamp(Date.now())} end    ${event.data.status}`;
  }
}

function describeStatusChange({ data }: OrganizationStreamEvent): string {
  return `${timestamp(data.updatedAt)} ${data.executionId} ${data.botId} ${data.status} (attempt ${data.attempt})`;
}

/**
 * `botfleet runs watch <executionId>`: the run as it goes, from its event stream (status, each
 * step, each log line), then its data or failure; exits like `runs trigger --wait`. With --json,
 * one event per line. `botfleet runs watch --all [--bot B] [--status S,...]`: the organization's
 * runs' status changes until Ctrl-C. A dropped connection is resumed without a gap.
 */
export async function watchRunCommand(context: CommandContext): Promise<ExitCode> {
  const { client, output, args } = context;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' }, bot: { type: 'string' }, status: { type: 'string' } },
  });
  const line = <T>(event: T, describe: (event: T) => string) =>
    output.out(output.json ? JSON.stringify(event) : describe(event));
  const stop = interruption();
  try {
    if (values.all) {
      if (positionals.length > 0) throw new UsageError('runs watch --all takes no execution id');
      const status = values.status?.split(',');
      const unknown = status?.find((s) => !STATUSES.includes(s as ExecutionStatus));
      if (unknown !== undefined) throw new UsageError(`--status takes ${STATUSES.join(', ')}; not '${unknown}'`);
      const filter = { botId: values.bot, status: status as ExecutionStatus[] | undefined };
      for await (const event of followOrganizationEvents(client, filter, { signal: stop.signal }))
        line(event, describeStatusChange);
      return EXIT.ok;
    }
    if (values.bot !== undefined || values.status !== undefined)
      throw new UsageError('--bot and --status go with --all');
    const executionId = oneId(positionals, 'execution id', 'runs watch');
    let last: Execution | undefined;
    for await (const event of followExecutionEvents(client, executionId, { signal: stop.signal })) {
      if (event.event === 'status') last = event.data;
      line(event, describeRunEvent);
    }
    if (stop.signal.aborted || !last) return EXIT.ok;
    if (!output.json) output.out(describeRun(await reportOf(context, last)));
    return outcome(last);
  } finally {
    stop.dispose();
  }
}
