import type { ExecutionStatus, ListOrganizationExecutionsData } from '@botfleet/sdk';

export const STATUSES: readonly ExecutionStatus[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];
export const TRIGGERS = ['api', 'schedule', 'rerun'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface RunFilters {
  statuses: ExecutionStatus[];
  trigger: Trigger | '';
  /** `YYYY-MM-DD` from a date input, read as the start of that day in the browser's zone. */
  from: string;
  /** Inclusive: runs created on this day are listed. */
  to: string;
}

export const NO_FILTERS: RunFilters = { statuses: [], trigger: '', from: '', to: '' };

type Query = NonNullable<ListOrganizationExecutionsData['query']>;

function startOfDay(day: string): number | undefined {
  const [y, m, d] = day.split('-').map(Number);
  if (!y || !m || !d) return undefined;
  return new Date(y, m - 1, d).getTime();
}

/** The filters as the query of GET /executions (the API's names and Unix-ms bounds). */
export function queryOf(filters: RunFilters): Omit<Query, 'limit' | 'cursor' | 'botId'> {
  const query: Omit<Query, 'limit' | 'cursor' | 'botId'> = {};
  if (filters.statuses.length > 0) query.status = filters.statuses.join(',');
  if (filters.trigger !== '') query.trigger = filters.trigger;
  const after = startOfDay(filters.from);
  if (after !== undefined) query.createdAfter = after;
  const before = startOfDay(filters.to);
  if (before !== undefined) query.createdBefore = before + 86_400_000;
  return query;
}
