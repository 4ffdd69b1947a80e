/**
 * The limits an operator may set for one organization (`npm run cli -- orgs limits`), each with
 * the env setting that is its default, the CLI option that sets it and the largest value it takes.
 * Tenants never write them: no API route does, `GET /api/v1/organization` only shows them.
 */
export const ORGANIZATION_LIMITS = {
  maxRunningExecutions: { env: 'MAX_RUNNING_EXECUTIONS_PER_ORG', option: 'max-running', max: 100_000 },
  maxPendingExecutions: { env: 'MAX_PENDING_EXECUTIONS_PER_ORG', option: 'max-pending', max: 10_000_000 },
  maxApiKeys: { env: 'MAX_API_KEYS_PER_ORG', option: 'max-keys', max: 100_000 },
  rateLimitPerMinute: { env: 'RATE_LIMIT_PER_MINUTE', option: 'rate-per-minute', max: 100_000_000 },
} as const;

export type OrganizationLimitName = keyof typeof ORGANIZATION_LIMITS;
export const ORGANIZATION_LIMIT_NAMES = Object.keys(ORGANIZATION_LIMITS) as OrganizationLimitName[];

/** An organization's own values, as stored: null means "the env default". */
export type OrganizationLimitOverrides = Record<OrganizationLimitName, number | null>;

/** The env defaults: null means no limit (MAX_RUNNING_EXECUTIONS_PER_ORG unset, RATE_LIMIT_PER_MINUTE=0). */
export type OrganizationLimitDefaults = Record<OrganizationLimitName, number | null>;

export const NO_LIMIT_OVERRIDES: OrganizationLimitOverrides = {
  maxRunningExecutions: null,
  maxPendingExecutions: null,
  maxApiKeys: null,
  rateLimitPerMinute: null,
};

export interface EffectiveLimit {
  /** What holds now; null: no limit. */
  value: number | null;
  /** Whether the organization has a value of its own or follows the env default. */
  source: 'organization' | 'default';
}
export type EffectiveLimits = Record<OrganizationLimitName, EffectiveLimit>;

/** The env settings as defaults: an unset running cap and a rate of 0 mean no limit. */
export function organizationLimitDefaults(settings: {
  maxRunningExecutions?: number;
  maxPendingExecutions: number;
  maxApiKeys: number;
  rateLimitPerMinute: number;
}): OrganizationLimitDefaults {
  return {
    maxRunningExecutions: settings.maxRunningExecutions ?? null,
    maxPendingExecutions: settings.maxPendingExecutions,
    maxApiKeys: settings.maxApiKeys,
    rateLimitPerMinute: settings.rateLimitPerMinute > 0 ? settings.rateLimitPerMinute : null,
  };
}

/** The one rule: the organization's own value, else the env default. */
export function effectiveLimit(own: number | null | undefined, fallback: number | null): number | null {
  return own ?? fallback;
}

export function effectiveLimits(own: OrganizationLimitOverrides, defaults: OrganizationLimitDefaults): EffectiveLimits {
  const entries = ORGANIZATION_LIMIT_NAMES.map((name) => {
    const value = own[name];
    const limit: EffectiveLimit =
      value === null ? { value: defaults[name], source: 'default' } : { value, source: 'organization' };
    return [name, limit] as const;
  });
  return Object.fromEntries(entries) as EffectiveLimits;
}

/**
 * A limit as the operator types it: a whole number from 1 to the limit's maximum, or `default`
 * (null: back to the env default). Returns the problem as a message when it is neither.
 */
export function parseLimitValue(
  name: OrganizationLimitName,
  text: string,
): { ok: true; value: number | null } | { ok: false; message: string } {
  const { option, max } = ORGANIZATION_LIMITS[name];
  if (text === 'default') return { ok: true, value: null };
  const value = /^\d{1,12}$/.test(text) ? Number(text) : NaN;
  if (Number.isSafeInteger(value) && value >= 1 && value <= max) return { ok: true, value };
  return { ok: false, message: `--${option} must be a whole number from 1 to ${max}, or 'default'` };
}
