import { newId, planExecutionEvents, type ExecutionEnd, type ExecutionFacts } from '@botfleet/core';
import type { Db } from './db-handle';
import { loadManifest, type StoredManifest } from './manifests';

/**
 * Creates the deliveries an execution's end produces (see planExecutionEvents), inside the
 * transaction that ends the execution, so they exist if and only if that end does. A bot without
 * a webhook, or whose webhook is disabled, gets none. Bodies are fixed here, as the exact JSON
 * that will be signed and sent on every attempt. Returns the new delivery ids, in sending order.
 */
export async function createEventDeliveries(
  tx: Db,
  facts: ExecutionFacts,
  end: ExecutionEnd,
  manifest?: StoredManifest,
): Promise<string[]> {
  const { webhook, webhookDisabledAt } = manifest ?? (await loadManifest(tx, facts.botId));
  if (!webhook || webhookDisabledAt) return [];
  const planned = planExecutionEvents(webhook, facts, end);
  if (planned.length === 0) return [];
  const now = new Date();
  const rows = planned.map((p) => ({
    id: newId('dlv'),
    executionId: facts.executionId,
    botId: facts.botId,
    status: 'pending' as const,
    event: p.event,
    url: webhook.url,
    auth: webhook.auth,
    body: p.body,
    nextAttemptAt: now,
  }));
  await tx.webhookDelivery.createMany({ data: rows });
  return rows.map((r) => r.id);
}
