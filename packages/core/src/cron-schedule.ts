import { CronExpressionParser } from 'cron-parser';

/*
 * Cron schedules, computed with cron-parser: the same library (and so the same DST rules) that
 * BullMQ's job schedulers fire with. A local time skipped by a clock change runs once right after
 * it (02:30 on a 02:00->03:00 night runs at 03:30), a repeated one runs once (the first).
 */

/** What a schedule fires on: a fixed interval, or a cron expression read in an IANA zone. */
export type ScheduleSpec =
  { kind: 'interval'; intervalSeconds: number } | { kind: 'cron'; cron: string; timezone: string };

/** How many upcoming occurrences are sampled to find a cron's shortest gap between two runs. */
const GAP_SAMPLE = 60;

/** Whether the IANA zone name is known to this runtime's time zone database. */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the cron expression cannot be used, or null when it can. 5 fields, or 6 with seconds first;
 * macros (`@daily`) and the looser forms cron-parser also accepts are refused, so what is stored
 * reads the same everywhere. `minIntervalSeconds` refuses expressions whose runs come closer.
 */
export function cronProblem(cron: string, timezone: string, minIntervalSeconds: number): string | null {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return 'must have 5 fields (6 with seconds first)';
  if (fields.some((f) => !/^[\w*,/\-?#LW]+$/.test(f))) return 'has a field with characters cron does not allow';
  let runs: number[];
  try {
    runs = cronRunsAfter(cron, isTimeZone(timezone) ? timezone : 'UTC', new Date(), GAP_SAMPLE);
  } catch (err) {
    return `is not a valid cron expression: ${(err as Error).message}`;
  }
  if (runs.length === 0) return 'never fires';
  for (let i = 1; i < runs.length; i++) {
    if (runs[i]! - runs[i - 1]! < minIntervalSeconds * 1000)
      return `fires more often than every ${minIntervalSeconds} seconds`;
  }
  return null;
}

/** The next `count` occurrences strictly after `after`, as Unix ms (fewer when the cron ends, e.g. a past year). */
export function cronRunsAfter(cron: string, timezone: string, after: Date, count: number): number[] {
  const expression = CronExpressionParser.parse(cron.trim(), { tz: timezone, currentDate: after, strict: false });
  const runs: number[] = [];
  while (runs.length < count && expression.hasNext()) runs.push(expression.next().getTime());
  return runs;
}

/**
 * The upcoming runs of an armed schedule whose next run is `first`: that one, then the following
 * occurrences. `first` need not be an occurrence (missed runs collapse into one fired at once).
 */
export function upcomingRuns(spec: ScheduleSpec, first: Date, count: number): number[] {
  if (count <= 0) return [];
  if (spec.kind === 'interval')
    return Array.from({ length: count }, (_, i) => first.getTime() + i * spec.intervalSeconds * 1000);
  return [first.getTime(), ...cronRunsAfter(spec.cron, spec.timezone, first, count - 1)];
}

/** The first run after `after` (exclusive), or null for a cron that never fires again. */
export function nextRunAfter(spec: ScheduleSpec, after: Date): Date | null {
  if (spec.kind === 'interval') return new Date(after.getTime() + spec.intervalSeconds * 1000);
  const [next] = cronRunsAfter(spec.cron, spec.timezone, after, 1);
  return next === undefined ? null : new Date(next);
}

/** The spec of a stored schedule row (exactly one of interval and cron is set). */
export function scheduleSpecOf(row: {
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
}): ScheduleSpec {
  if (row.cron !== null) return { kind: 'cron', cron: row.cron, timezone: row.timezone };
  if (row.intervalSeconds === null) throw new Error('schedule has neither an interval nor a cron');
  return { kind: 'interval', intervalSeconds: row.intervalSeconds };
}
