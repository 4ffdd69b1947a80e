import { createOps } from './ops';
import type { WatchedQueue } from './queue-depth';
import { readProcessMetrics, sumProcessMetrics } from './summed-metrics';

const queue: WatchedQueue = {
  name: 'executions',
  getJobCounts: async () => ({ wait: 7, active: 1, delayed: 0, failed: 0, prioritized: 0 }),
  getJobs: async () => [],
};

/** The value of one sample line (`name{labels} value`), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

it('adds up counters and histograms over processes, and reports the shared queue depth once', async () => {
  // The primary (no API traffic of its own) and two API processes, each reading the same queue.
  const [primary, first, second] = [createOps(), createOps(), createOps()];
  const labels = { method: 'GET', route: '/healthz', status: '200' };
  first.metrics.httpRequests.inc(labels, 2);
  second.metrics.httpRequests.inc(labels, 3);
  first.metrics.httpRequestDuration.observe(labels, 0.002);
  second.metrics.httpRequestDuration.observe(labels, 0.002);
  const unwatch = [primary, first, second].map((ops) => ops.watchQueues([queue]));

  const text = await sumProcessMetrics(primary, [await readProcessMetrics(first), await readProcessMetrics(second)]);
  expect(sample(text, 'botfleet_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(5);
  expect(sample(text, 'botfleet_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}')).toBe(
    2,
  );
  expect(sample(text, 'botfleet_queue_jobs{queue="executions",state="waiting"}')).toBe(7);
  expect(text.match(/^# TYPE botfleet_http_requests_total counter$/gm)).toHaveLength(1);
  unwatch.forEach((stop) => stop());
});
