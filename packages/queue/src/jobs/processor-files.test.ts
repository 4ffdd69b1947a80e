import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { jobCatalog } from './index';

/*
 * One naming for processors: the job `webhook.deliver` is processed by `webhook-deliver.processor.ts`
 * in the app that owns it, exporting `createWebhookDeliverProcessor(deps: WebhookDeliverProcessorDeps)`.
 */

const APPS = join(__dirname, '..', '..', '..', '..', 'apps');
const words = (jobName: string) => jobName.split(/[.-]/);
const pascal = (jobName: string) =>
  words(jobName)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

it.each(jobCatalog.map((job) => job.name))('%s has one <job>.processor.ts exporting create<Job>Processor', (name) => {
  const file = `${words(name).join('-')}.processor.ts`;
  const homes = readdirSync(APPS)
    .map((app) => join(APPS, app, 'src', file))
    .filter((path) => existsSync(path));
  expect(homes).toHaveLength(1);
  const source = readFileSync(homes[0]!, 'utf8');
  expect(source).toContain(`export function create${pascal(name)}Processor(deps: ${pascal(name)}ProcessorDeps)`);
});

it('names no other file a processor', () => {
  const expected = new Set(jobCatalog.map((job) => `${words(job.name).join('-')}.processor.ts`));
  const processors = readdirSync(APPS).flatMap((app) =>
    existsSync(join(APPS, app, 'src'))
      ? readdirSync(join(APPS, app, 'src')).filter((f) => /processor/i.test(f) && !f.endsWith('.test.ts'))
      : [],
  );
  expect(processors.filter((f) => !expected.has(f))).toEqual([]);
});
