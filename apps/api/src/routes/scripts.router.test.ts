import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

async function botWithSteps(): Promise<string> {
  const steps = [
    { action: 'click', selector: '#go' },
    { action: 'extract', name: 'title', selector: 'h1' },
  ];
  return h.newBot(org, { name: 's' }, { steps });
}
const scripts = async (botId: string) =>
  (await request(h.app).get(`/api/v1/bots/${botId}/scripts`).set(org.auth('read'))).body.data;

describe('scripts', () => {
  it('generates a readable script from the steps and regenerates it when they change', async () => {
    const botId = await botWithSteps();
    const [generated] = await scripts(botId);
    expect(generated).toEqual({
      id: expect.stringMatching(/^scr_/),
      name: 'Generated from recorded steps',
      language: 'javascript',
      origin: 'generated',
      source: expect.stringContaining('export default async'),
      active: true,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(generated.source).toContain('page.click("#go")');
    await request(h.app)
      .put(`/api/v1/bots/${botId}/steps`)
      .set(org.auth('write'))
      .send({ steps: [{ action: 'hover', selector: '#menu' }] });
    const after = await scripts(botId);
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(generated.id);
    expect(after[0].source).toContain('page.hover("#menu")');
    expect(after[0].source).not.toContain('#go');
  });

  it('adds handwritten scripts and keeps exactly one active', async () => {
    const botId = await botWithSteps();
    const source = 'export default async ({ page }) => ({ title: await page.title() });';
    const created = await request(h.app)
      .post(`/api/v1/bots/${botId}/scripts`)
      .set(org.auth('write'))
      .send({ name: 'mine', source, active: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'mine',
      origin: 'handwritten',
      source,
      active: true,
      language: 'javascript',
    });
    let all = await scripts(botId);
    expect(all.filter((s: { active: boolean }) => s.active).map((s: { id: string }) => s.id)).toEqual([
      created.body.id,
    ]);

    const generatedId = all.find((s: { origin: string }) => s.origin === 'generated').id;
    const back = await request(h.app)
      .patch(`/api/v1/bots/${botId}/scripts/${generatedId}`)
      .set(org.auth('write'))
      .send({ active: true });
    expect(back.status).toBe(200);
    all = await scripts(botId);
    expect(all.filter((s: { active: boolean }) => s.active).map((s: { id: string }) => s.id)).toEqual([generatedId]);

    // Deactivating the only active handwritten script falls back to the steps (generated).
    await request(h.app)
      .patch(`/api/v1/bots/${botId}/scripts/${created.body.id}`)
      .set(org.auth('write'))
      .send({ active: true });
    await request(h.app)
      .patch(`/api/v1/bots/${botId}/scripts/${created.body.id}`)
      .set(org.auth('write'))
      .send({ active: false });
    all = await scripts(botId);
    expect(all.filter((s: { active: boolean }) => s.active).map((s: { id: string }) => s.id)).toEqual([generatedId]);

    expect(
      (
        await request(h.app)
          .patch(`/api/v1/bots/${botId}/scripts/${generatedId}`)
          .set(org.auth('write'))
          .send({ source })
      ).status,
    ).toBe(409);
    expect(
      (await request(h.app).delete(`/api/v1/bots/${botId}/scripts/${generatedId}`).set(org.auth('write'))).status,
    ).toBe(409);
    expect(
      (await request(h.app).delete(`/api/v1/bots/${botId}/scripts/${created.body.id}`).set(org.auth('write'))).status,
    ).toBe(204);
    expect(await scripts(botId)).toHaveLength(1);
    expect(
      (
        await request(h.app)
          .patch(`/api/v1/bots/${botId}/scripts/scr_nope`)
          .set(org.auth('write'))
          .send({ active: true })
      ).status,
    ).toBe(404);
  });

  it.each([
    [{ source: 'export default async () => 1;' }, 'name'],
    [{ name: 'x' }, 'source'],
    [{ name: 'x', source: 'module.exports = () => 1' }, 'source'],
    [{ name: 'x', source: 'export default 1', active: 'yes' }, 'active'],
    [{ name: 'x', source: 'export default 1', language: 'python' }, 'language'],
  ])('rejects %j', async (body, field) => {
    const botId = await botWithSteps();
    const res = await request(h.app).post(`/api/v1/bots/${botId}/scripts`).set(org.auth('write')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});
