import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Every botfleet_* metric, declared once so names, labels and buckets cannot drift between
 * roles. One set per process registry: with several roles in one process they share it, and
 * each role updates only the metrics that concern it.
 */
export function createFleetMetrics(registry: Registry) {
  const registers = [registry];
  return {
    executionsTotal: new Counter({
      name: 'botfleet_executions_total',
      help: 'Executions that reached a final state in this process, by status and trigger',
      labelNames: ['status', 'trigger'] as const,
      registers,
    }),
    executionDuration: new Histogram({
      name: 'botfleet_execution_duration_seconds',
      help: 'Wall time of one execution attempt, from claim to final write',
      labelNames: ['status'] as const,
      buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
      registers,
    }),
    executionsRunning: new Gauge({
      name: 'botfleet_executions_running',
      help: 'Executions running in this process now',
      registers,
    }),
    browserRestarts: new Counter({
      name: 'botfleet_browser_restarts_total',
      help: 'Chromium relaunches: lost (disconnected) or recycled after its runs or memory, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'botfleet_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhooksDisabled: new Counter({
      name: 'botfleet_webhooks_disabled_total',
      help: 'Webhooks disabled by the delivery role, by reason (gone: 410; failing: WEBHOOK_DISABLE_AFTER_DAYS)',
      labelNames: ['reason'] as const,
      registers,
    }),
    webhookDeliveryDuration: new Histogram({
      name: 'botfleet_webhook_delivery_duration_seconds',
      help: 'Duration of one webhook delivery attempt (login, sign, POST)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    scheduleLag: new Histogram({
      name: 'botfleet_schedule_lag_seconds',
      help: 'Delay between a schedule slot and the tick that handled it',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    scheduleTicksSkipped: new Counter({
      name: 'botfleet_schedule_ticks_skipped_total',
      help: 'Schedule slots that fired no run, by reason (disarmed: bot gone, paused or schedule off; overlap; pending_cap)',
      labelNames: ['reason'] as const,
      registers,
    }),
    httpRequests: new Counter({
      name: 'botfleet_http_requests_total',
      help: 'HTTP requests by method, route and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpRequestDuration: new Histogram({
      name: 'botfleet_http_request_duration_seconds',
      help: 'HTTP request duration by method, route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
  };
}

export type FleetMetrics = ReturnType<typeof createFleetMetrics>;
