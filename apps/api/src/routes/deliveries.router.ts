import { listDeliveriesForBot, listDeliveriesForExecution, loadManifest } from '@botfleet/db';
import { redeliverDelivery } from '@botfleet/engine';
import { JwtTokenCache } from '@botfleet/webhooks';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { sendWebhookTest } from '../services/webhook-test';
import { toListView, toPageView } from '../views/collection.view';
import { toDeliveryView } from '../views/delivery.view';
import { listOf, pageOf } from '../contracts/common.contract';
import { DeliveryListQuerySchema, DeliverySchema, WebhookTestResultSchema } from '../contracts/deliveries.contract';
import { BotParams, DeliveryParams, ExecutionParams } from '../contracts/path-params';
import { botOfCaller, deliveryOfCaller, executionOfCaller } from './resource-loaders';

export function deliveryRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  // One login per organization and receiver for test sends, as the delivery role caches them.
  const tokenCache = new JwtTokenCache();
  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/deliveries',
        operationId: 'listExecutionDeliveries',
        tag: 'Executions',
        summary: 'Webhook deliveries of an execution, with every attempt',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The execution’s deliveries, oldest first', schema: listOf(DeliverySchema) } },
      },
      async ({ auth, execution }) => {
        const rows = await listDeliveriesForExecution(db, execution.id);
        return { status: 200, body: toListView(rows.map((row) => toDeliveryView(row, auth.permission))) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/deliveries',
        operationId: 'listBotDeliveries',
        tag: 'Webhooks',
        summary: 'The bot’s webhook deliveries with their attempts, newest first',
        permission: 'read',
        params: BotParams,
        query: DeliveryListQuerySchema,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'A page of deliveries', schema: pageOf(DeliverySchema) } },
      },
      async ({ auth, bot, query }) => {
        const page = await listDeliveriesForBot(db, bot.id, query);
        return { status: 200, body: toPageView(page, (row) => toDeliveryView(row, auth.permission)) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/webhook/test',
        operationId: 'testWebhook',
        tag: 'Webhooks',
        summary: 'Send a webhook.test event to the bot’s webhook now, signed as configured (never retried)',
        permission: 'write',
        params: BotParams,
        load: { bot: botOfCaller },
        responses: {
          200: { description: 'What the receiver answered', schema: WebhookTestResultSchema },
          409: { description: 'The bot has no webhook' },
        },
      },
      async ({ bot }) => {
        const manifest = await loadManifest(db, bot.id);
        const body = await sendWebhookTest({ ...deps, tokenCache }, bot, manifest);
        return { status: 200, body };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/deliveries/:deliveryId/redeliver',
        operationId: 'redeliverDelivery',
        tag: 'Webhooks',
        summary: 'Send a finished delivery again: a new attempt series with the same webhook-id and body',
        permission: 'write',
        params: DeliveryParams,
        load: { delivery: deliveryOfCaller },
        responses: {
          202: { description: 'The delivery, pending again', schema: DeliverySchema },
          409: { description: 'The delivery is still pending, or the webhook is disabled' },
        },
      },
      async ({ auth, delivery }) => {
        const restarted = await redeliverDelivery(deps, { organizationId: auth.organizationId, delivery });
        return { status: 202, body: toDeliveryView(restarted ?? delivery, auth.permission) };
      },
    ),
  ];
}
