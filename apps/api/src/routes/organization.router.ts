import { effectiveLimits, notFound } from '@botfleet/core';
import { findOrganization, organizationUsage } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { organizationRequestsThisMinute } from '../http/rate-limit';
import { defineRoute, type Route } from '../http/route';
import { limitDefaultsOf } from '../services/organization-limits';
import { OrganizationSchema } from '../contracts/organization.contract';

export function organizationRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  const defaults = limitDefaultsOf(deps.settings);
  return [
    defineRoute(
      {
        method: 'get',
        path: '/organization',
        operationId: 'getOrganization',
        tag: 'Organization',
        summary: 'The caller’s organization: its limits and what it uses of them now',
        description:
          'Each limit is the one the operator set for this organization, else the server-wide default ' +
          '(`source` says which). Tenants cannot change them: the operator sets them with ' +
          '`npm run cli -- orgs limits`.',
        permission: 'read',
        responses: { 200: { description: 'The organization', schema: OrganizationSchema } },
      },
      async ({ auth }) => {
        // Read afresh rather than from the key cache: an operator's change shows at once here.
        const [org, usage] = await Promise.all([
          findOrganization(db, auth.organizationId),
          organizationUsage(db, auth.organizationId),
        ]);
        if (!org) throw notFound('Organization');
        const limits = effectiveLimits(org.limits, defaults);
        const rate = limits.rateLimitPerMinute.value;
        // Best effort, as the limiter itself: Redis being away must not fail this read.
        const requests =
          rate === null
            ? null
            : await organizationRequestsThisMinute(deps.redis, deps.queues.prefix, org.id).catch(() => null);
        return {
          status: 200,
          body: {
            id: org.id,
            slug: org.slug,
            name: org.name,
            limits,
            usage: {
              runningExecutions: usage.running,
              pendingExecutions: usage.pending,
              apiKeys: usage.apiKeys,
              // Leases are counted when taken: never show more than the budget.
              requestsThisMinute: requests === null || rate === null ? null : Math.min(requests, rate),
            },
          },
        };
      },
    ),
  ];
}
