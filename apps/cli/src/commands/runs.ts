import {
  ExecutionWaitTimeout,
  getExecution,
  getExtract,
  getFailure,
  getManifest,
  listExecutionDeliveries,
  listLogs,
  triggerExecution,
  waitForExecution,
  type Execution,
  type Failure,
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
    if (failure.stepIndex !== null) lines.push(`failed step: ${failure.stepIndex}`);
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
