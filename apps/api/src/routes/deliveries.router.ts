import { listOf } from '@botfleet/core';
import { listDeliveriesForExecution } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toListView } from '../views/collection.view';
import { toDeliveryView } from '../views/delivery.view';
import { DeliverySchema } from './deliveries.schema';
import { ExecutionParams } from './path-params';
import { executionOfCaller } from './resource-loaders';

export function deliveryRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/deliveries',
        tag: 'Executions',
        summary: 'Webhook deliveries of an execution, with every attempt',
        permission: 'read',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The execution’s deliveries, oldest first', schema: listOf(DeliverySchema) } },
      },
      async ({ execution }) => {
        const rows = await listDeliveriesForExecution(db, execution.id);
        return { status: 200, body: toListView(rows.map(toDeliveryView)) };
      },
    ),
  ];
}
