import { hashApiKey } from '@botfleet/core';
import { findApiKey } from '@botfleet/db';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

describe('API keys', () => {
  it('creates a key shown once, stores only its hash, lists it without secrets and revokes it', async () => {
    const created = await request(h.app)
      .post('/api/v1/api-keys')
      .set(org.auth('admin'))
      .send({ name: 'ci', permission: 'write' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'ci',
      permission: 'write',
      keyPrefix: created.body.key.slice(0, 10),
      createdAt: expect.any(Number),
      lastUsedAt: null,
      key: expect.stringMatching(/^bf_[0-9A-Za-z]{43}$/),
    });
    const key: string = created.body.key;

    const row = (await findApiKey(h.db, created.body.id))!;
    expect(row.keyHash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);

    // The new key works with its permission, and the listing never shows key material.
    const bot = await request(h.app)
      .post('/api/v1/bots')
      .set('Authorization', `Bearer ${key}`)
      .send({ name: 'k', targetUrl: 'https://a.example' });
    expect(bot.status).toBe(201);
    const listed = await request(h.app).get('/api/v1/api-keys').set(org.auth('admin'));
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    const entry = listed.body.data.find((k: { id: string }) => k.id === created.body.id);
    expect(Object.keys(entry).sort()).toEqual(['createdAt', 'id', 'keyPrefix', 'lastUsedAt', 'name', 'permission']);
    expect(entry.lastUsedAt).toEqual(expect.any(Number));

    expect((await request(h.app).delete(`/api/v1/api-keys/${created.body.id}`).set(org.auth('admin'))).status).toBe(
      204,
    );
    const after = await request(h.app).get('/api/v1/bots').set('Authorization', `Bearer ${key}`);
    expect(after.status).toBe(401);
    expect((await request(h.app).delete(`/api/v1/api-keys/${created.body.id}`).set(org.auth('admin'))).status).toBe(
      404,
    );
  });

  it.each([
    [{ name: 'x', permission: 'root' }, 'permission'],
    [{ name: '', permission: 'read' }, 'name'],
    [{ permission: 'read' }, 'name'],
    [{ name: 'x', permission: 'read', organizationId: 'org_other' }, 'organizationId'],
  ])('rejects %j', async (body, field) => {
    const res = await request(h.app).post('/api/v1/api-keys').set(org.auth('admin')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});

describe('GET /api-keys/current', () => {
  it.each(['read', 'write', 'admin'] as const)('tells a %s key its own permission, without key material', async (p) => {
    const res = await request(h.app).get('/api/v1/api-keys/current').set(org.auth(p));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: p,
      permission: p,
      keyPrefix: org.keys[p].slice(0, 10),
      createdAt: expect.any(Number),
    });
    // lastUsedAt is recorded after the request is answered, so it may still read null here.
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'keyPrefix', 'lastUsedAt', 'name', 'permission']);
  });
});
