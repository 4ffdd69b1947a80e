import { organizationLimitDefaults, type OrganizationLimitDefaults } from '@botfleet/core';
import type { ApiSettings } from '../deps';
import { DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG } from './pending-cap';

/** MAX_API_KEYS_PER_ORG when the API is not told otherwise. */
export const DEFAULT_MAX_API_KEYS_PER_ORG = 100;

/** The env defaults of every organization limit, as this API was configured. */
export function limitDefaultsOf(settings: ApiSettings): OrganizationLimitDefaults {
  return organizationLimitDefaults({
    maxRunningExecutions: settings.maxRunningExecutionsPerOrg,
    maxPendingExecutions: settings.maxPendingExecutionsPerOrg ?? DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG,
    maxApiKeys: settings.maxApiKeysPerOrg ?? DEFAULT_MAX_API_KEYS_PER_ORG,
    rateLimitPerMinute: settings.rateLimitPerMinute,
  });
}
