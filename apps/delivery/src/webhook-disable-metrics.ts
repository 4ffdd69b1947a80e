import { Counter, type Registry } from 'prom-client';

/** Why the delivery role disabled a webhook: the receiver answered 410, or only failed for days. */
export type WebhookDisableReason = 'gone' | 'failing';

const NAME = 'botfleet_webhooks_disabled_total';

/**
 * Counts webhooks the delivery role disabled, on the process registry (the ops module's). Several
 * roles or test fixtures in one process share the registry, so the counter is made once.
 */
export function webhookDisableCounter(registry: Registry): Counter<'reason'> {
  const existing = registry.getSingleMetric(NAME);
  if (existing) return existing as Counter<'reason'>;
  return new Counter({
    name: NAME,
    help: 'Webhooks disabled by the delivery role, by reason (gone: 410; failing: WEBHOOK_DISABLE_AFTER_DAYS)',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
}
