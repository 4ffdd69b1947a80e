import {
  readRecordingFixture,
  rewriteOrigins,
  RUNNABLE_RECORDINGS,
  startRecordingSite,
  type RecordingFixture,
  type RecordingSite,
} from '@botfleet/testkit';
import { join } from 'node:path';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * Chrome Recorder exports (test/fixtures/recordings) made into bots through the API, run by the
 * real worker in Chromium against loopback copies of the sites they were recorded on. Each run
 * ends with extract steps that read what the recording did to the site.
 */

let h: E2eHarness;
beforeAll(async () => {
  h = await createE2eHarness();
});
afterAll(() => h.close());

const write = () => h.org.auth('write');

/** Creates a bot from the recording, appends the site's read-back steps, runs it; returns the run. */
async function runRecording(site: RecordingSite, recording: unknown = site.recording) {
  const created = await request(h.api.app).post('/api/v1/bots').set(write()).send({ recording });
  expect(created.status).toBe(201);
  const botId = created.body.id as string;
  const steps = (await h.get(`/api/v1/bots/${botId}/steps`)).body.data as object[];
  const put = await request(h.api.app)
    .put(`/api/v1/bots/${botId}/steps`)
    .set(write())
    .send({ steps: [...steps, ...site.readBack.steps].map(({ index: _index, ...step }: { index?: number }) => step) });
  expect(put.status).toBe(200);
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId, 60_000);
  return { botId, created: created.body, executionId, execution };
}

async function failureOf(executionId: string) {
  return (await h.get(`/api/v1/executions/${executionId}/failure`)).body;
}

describe.each(RUNNABLE_RECORDINGS.map((name) => [name] as const))('the recording %s', (name: RecordingFixture) => {
  let site: RecordingSite;
  beforeAll(async () => {
    site = await startRecordingSite(name);
  });
  afterAll(() => site.close());

  it('becomes a bot that runs in Chromium and changes the page as recorded', async () => {
    const { executionId, execution, created } = await runRecording(site);
    if (execution.status !== 'completed') throw new Error(JSON.stringify(await failureOf(executionId)));
    const steps = site.recording.steps as { type: string; url?: string }[];
    expect(created.targetUrl).toBe(steps.find((step) => step.type === 'navigate')?.url);
    expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data).toEqual(site.readBack.expected);
  });
});

it('records which selector alternative matched in the step output', async () => {
  const site = await startRecordingSite('relabelled-site');
  try {
    const { executionId, execution } = await runRecording(site);
    expect(execution.status).toBe('completed');
    const outputs = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data as {
      action: string;
      data: unknown;
    }[];
    // Only the aria/ and text/ alternatives still match the redesigned site.
    expect(outputs.filter((o) => o.action === 'click').map((o) => o.data)).toEqual([
      { selector: ['text/Accept all cookies'] },
      { selector: ['aria/Get the newsletter[role="button"]'] },
      { selector: ['aria/Subscribe'] },
    ]);
  } finally {
    await site.close();
  }
});

it('fails a step no alternative matches, naming each alternative, with a screenshot', async () => {
  const site = await startRecordingSite('relabelled-site');
  try {
    const recording = structuredClone(site.recording) as { steps: Record<string, unknown>[] };
    recording.steps.splice(1, recording.steps.length - 1, {
      type: 'click',
      target: 'main',
      timeout: 1_500,
      selectors: [['#gone'], ['xpath//html/body/div[9]'], ['aria/Nothing here'], ['text/Nowhere to be found']],
      offsetX: 1,
      offsetY: 1,
    });
    const { executionId, execution } = await runRecording(site, recording);
    expect(execution.status).toBe('failed');
    const failure = await failureOf(executionId);
    expect(failure.stepIndex).toBe(0);
    expect(failure.error).toContain('No element matched any selector alternative within');
    for (const tried of ['"#gone"', '"xpath//html/body/div[9]"', '"aria/Nothing here"', '"text/Nowhere to be found"']) {
      expect(failure.error).toContain(tried);
    }
    expect(failure.screenshotUrl).toEqual(expect.stringMatching(/^http/));
  } finally {
    await site.close();
  }
});

it('runs the README example recording (examples/) against the site it was recorded on', async () => {
  const site = await startRecordingSite('search-with-select');
  try {
    const example = readRecordingFixture('book-search.recording', join(__dirname, '..', '..', '..', 'examples'));
    const { executionId, execution } = await runRecording(
      { ...site, readBack: { steps: [site.readBack.steps[0]!], expected: {} } },
      rewriteOrigins(example, site.server.origin),
    );
    if (execution.status !== 'completed') throw new Error(JSON.stringify(await failureOf(executionId)));
    expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data).toEqual({
      summary: 'science-fiction: dune',
    });
  } finally {
    await site.close();
  }
});
