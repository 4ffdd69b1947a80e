import { CONFIG_DEFAULTS, organizationLimitDefaults, type OrganizationLimitDefaults } from '@botfleet/core';
import type { ApiSettings } from '../deps';

/** The env defaults of every organization limit, as this API was configured. */
export function limitDefaultsOf(settings: ApiSettings): OrganizationLimitDefaults {
  return organizationLimitDefaults({
    maxRunningExecutions: settings.maxRunningExecutionsPerOrg,
    maxPendingExecutions: settings.maxPendingExecutionsPerOrg ?? CONFIG_DEFAULTS.MAX_PENDING_EXECUTIONS_PER_ORG,
    maxApiKeys: settings.maxApiKeysPerOrg ?? CONFIG_DEFAULTS.MAX_API_KEYS_PER_ORG,
    rateLimitPerMinute: settings.rateLimitPerMinute,
  });
}
