import { newArtifactId } from '@botfleet/db';
import { artifactInRow, createTestExecution, seedProgress } from '@botfleet/db/testing';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Contract part 3, section 7: a run's artifacts as listed, whatever kind and store. The browser
 * side (a trace opened in the viewer) is tested by the console's test.
 */

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

it('lists every kind with its step and the size of its row, wherever the content lies', async () => {
  const botId = await h.newBot(org);
  const execution = await createTestExecution(h.db, { botId, organizationId: org.id });
  await h.db.execution.update({ where: { id: execution.id }, data: { status: 'failed', failedStepIndex: 2 } });
  const png = Buffer.from('png');
  await seedProgress(h.db, execution.id, {
    steps: [],
    logs: [],
    artifacts: [
      { ...artifactInRow('stepScreenshot', 'image/png', png), stepIndex: 1 },
      artifactInRow('failure-screenshot', 'image/png', png),
      // In S3: the row has no data, only the object's key and its size.
      {
        id: newArtifactId(),
        kind: 'trace',
        contentType: 'application/zip',
        data: null,
        storageKey: 'k/t',
        bytes: 4096,
      },
      artifactInRow('har', 'application/json', Buffer.from('{}')),
    ],
  });

  const res = await request(h.app).get(`/api/v1/executions/${execution.id}/artifacts`).set(org.auth('read'));
  expect(res.status).toBe(200);
  const listed = res.body.data as Record<string, unknown>[];
  const byKind = Object.fromEntries(listed.map(({ kind, stepIndex, bytes }) => [kind, { stepIndex, bytes }]));
  expect(byKind).toEqual({
    stepScreenshot: { stepIndex: 1, bytes: 3 },
    // The failure screenshot is a screenshot of the step that failed.
    screenshot: { stepIndex: 2, bytes: 3 },
    trace: { stepIndex: undefined, bytes: 4096 },
    har: { stepIndex: undefined, bytes: 2 },
  });
  expect(listed.find((a) => a.kind === 'trace')).not.toHaveProperty('stepIndex');
  for (const artifact of listed) {
    const url = new URL(artifact.url as string);
    expect(url.pathname).toBe(`/api/v1/artifacts/${artifact.id as string}`);
    expect(url.searchParams.get('signature')).toEqual(expect.any(String));
  }
});
