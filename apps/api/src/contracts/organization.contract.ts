import { z } from 'zod';

const limit = (what: string) =>
  z
    .object({
      value: z.number().int().min(1).nullable().describe(`${what}; null: no limit`),
      source: z
        .enum(['organization', 'default'])
        .describe('`organization`: set for this organization by the operator; `default`: the server-wide setting'),
    })
    .describe(what);

export const OrganizationSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  limits: z
    .object({
      maxRunningExecutions: limit('Executions of the organization running at once across the fleet'),
      maxPendingExecutions: limit('Executions that may wait at once; a trigger past it answers 429'),
      maxApiKeys: limit('Unrevoked API keys; creating one more answers 409 limit_reached'),
      rateLimitPerMinute: limit(
        'Requests per minute of all the organization’s keys together (each key also has its own)',
      ),
    })
    .describe('Set by the operator (`orgs limits`), never through the API'),
  usage: z.object({
    runningExecutions: z.number().int().min(0),
    pendingExecutions: z.number().int().min(0),
    apiKeys: z.number().int().min(0).describe('Unrevoked keys'),
    requestsThisMinute: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe(
        'Requests counted against the organization’s rate limit this minute (API processes count them in ' +
          'small blocks, so it may run slightly ahead); null when no rate limit applies or it cannot be read now',
      ),
  }),
});
export type OrganizationView = z.infer<typeof OrganizationSchema>;
