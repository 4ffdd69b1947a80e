import { findCredential, loadSteps } from '@botfleet/db';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
let stranger: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});
beforeAll(async () => {
  stranger = await h.newOrg();
});

/** Secrets no response, error or stored step may contain. */
const PASSWORD = 'correct-horse-battery-9';
const NEW_PASSWORD = 'rotated-staple-17';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const OTHER_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBV';
const RECORDED_TEXT = 'typed-into-the-recording-42';
const SECRETS = [PASSWORD, NEW_PASSWORD, TOTP_SECRET, OTHER_SECRET, RECORDED_TEXT];

let counter = 0;
const uniqueName = (base: string) => `${base} ${++counter}`;

/** Where the credentials of this file may be filled, unless a test gives its own `origins`. */
const SHOP = 'https://shop.example';
const create = (body: object, as: TestOrg = org) =>
  request(h.app)
    .post('/api/v1/credentials')
    .set(as.auth('write'))
    .send({ origins: [SHOP], ...body });
const patch = (id: string, body: object, as: TestOrg = org) =>
  request(h.app).patch(`/api/v1/credentials/${id}`).set(as.auth('write')).send(body);
const get = (id: string, as: TestOrg = org) => request(h.app).get(`/api/v1/credentials/${id}`).set(as.auth('read'));
// Steps that fill from a credential need an admin key (docs/security.md).
const putSteps = (botId: string, steps: object[]) =>
  request(h.app).put(`/api/v1/bots/${botId}/steps`).set(org.auth('admin')).send({ steps });

/** A credential with every field, created through the API; answers its id. */
async function newCredential(fields: object = {}): Promise<string> {
  const res = await create({ name: uniqueName('login'), username: 'alice', password: PASSWORD, ...fields });
  if (res.status !== 201) throw new Error(`creating a credential failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

function expectNoSecret(text: string) {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('credentials', () => {
  it('creates, lists, reads, rotates and deletes, never answering a secret', async () => {
    const created = await create({
      name: 'shop login',
      username: 'alice@example.com',
      password: PASSWORD,
      totpSecret: TOTP_SECRET,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^crd_/),
      name: 'shop login',
      username: 'alice@example.com',
      origins: [SHOP],
      hasPassword: true,
      hasTotp: true,
      totp: { algorithm: 'SHA1', digits: 6, period: 30 },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const id: string = created.body.id;
    const texts = [created.text];

    // Stored sealed: the row holds neither the password nor the TOTP secret.
    const row = (await findCredential(h.db, org.id, id))!;
    expect(row.passwordEnc).toMatch(/^v1\./);
    expect(row.totpEnc).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(JSON.stringify(row)).not.toContain(TOTP_SECRET);
    expect(h.deps.secretBox.decrypt(row.passwordEnc!)).toBe(PASSWORD);

    const listed = await request(h.app).get('/api/v1/credentials').set(org.auth('read'));
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((c: { id: string }) => c.id === id)).toEqual(created.body);
    expect(listed.body.nextCursor).toBeNull();
    const read = await get(id);
    expect(read.body).toEqual(created.body);
    texts.push(listed.text, read.text);

    // Rotate the password and replace the TOTP through a URI with its own parameters.
    const rotated = await patch(id, {
      password: NEW_PASSWORD,
      otpauthUri: `otpauth://totp/Shop:alice?secret=${OTHER_SECRET}&issuer=Shop&algorithm=SHA256&digits=8&period=60`,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      hasPassword: true,
      hasTotp: true,
      totp: { algorithm: 'SHA256', digits: 8, period: 60 },
    });
    const afterRotation = (await findCredential(h.db, org.id, id))!;
    expect(h.deps.secretBox.decrypt(afterRotation.passwordEnc!)).toBe(NEW_PASSWORD);
    expect(JSON.parse(h.deps.secretBox.decrypt(afterRotation.totpEnc!))).toMatchObject({ secret: OTHER_SECRET });
    texts.push(rotated.text);

    // Rename, remove the username, the password and the TOTP.
    const stripped = await patch(id, { name: 'renamed', username: null, password: null, totpSecret: null });
    expect(stripped.status).toBe(200);
    expect(stripped.body).toMatchObject({
      name: 'renamed',
      username: null,
      hasPassword: false,
      hasTotp: false,
      totp: null,
    });
    expect(await findCredential(h.db, org.id, id)).toMatchObject({ passwordEnc: null, totpEnc: null });
    texts.push(stripped.text);
    texts.forEach(expectNoSecret);

    expect((await request(h.app).delete(`/api/v1/credentials/${id}`).set(org.auth('write'))).status).toBe(204);
    expect((await get(id)).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/credentials/${id}`).set(org.auth('write'))).status).toBe(404);
  });

  it('pages the list newest first', async () => {
    const other = await h.newOrg();
    for (const name of ['a', 'b', 'c']) expect((await create({ name }, other)).status).toBe(201);
    const first = await request(h.app).get('/api/v1/credentials?limit=2').set(other.auth('read'));
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(['c', 'b']);
    const next = await request(h.app)
      .get(`/api/v1/credentials?limit=2&cursor=${first.body.nextCursor}`)
      .set(other.auth('read'));
    expect(next.body).toMatchObject({ data: [{ name: 'a' }], nextCursor: null });
  });

  it('answers 409 for a name the organization already uses, on create and rename', async () => {
    const name = uniqueName('taken');
    expect((await create({ name })).status).toBe(201);
    const again = await create({ name, password: PASSWORD });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining(name) });
    expectNoSecret(again.text);
    const id = await newCredential();
    expect((await patch(id, { name })).status).toBe(409);
    // Another organization may use the same name.
    expect((await create({ name }, stranger)).status).toBe(201);
  });

  it.each([
    ['an HOTP URI', { otpauthUri: `otpauth://hotp/x?secret=${TOTP_SECRET}&counter=1` }, 'otpauthUri'],
    ['a URI without a secret', { otpauthUri: 'otpauth://totp/x?issuer=Example' }, 'otpauthUri'],
    ['a URI with bad base32', { otpauthUri: `otpauth://totp/x?secret=${RECORDED_TEXT}!` }, 'otpauthUri'],
    ['a URI with 5 digits', { otpauthUri: `otpauth://totp/x?secret=${TOTP_SECRET}&digits=5` }, 'otpauthUri'],
    [
      'a URI with an unknown algorithm',
      { otpauthUri: `otpauth://totp/x?secret=${TOTP_SECRET}&algorithm=MD5` },
      'otpauthUri',
    ],
    ['not a URI', { otpauthUri: `secret=${TOTP_SECRET}` }, 'otpauthUri'],
    ['a secret that is not base32', { totpSecret: `${OTHER_SECRET}!!` }, 'totpSecret'],
    ['a short secret', { totpSecret: 'JBSWY3DP' }, 'totpSecret'],
    [
      'both a secret and a URI',
      { totpSecret: TOTP_SECRET, otpauthUri: `otpauth://totp/x?secret=${TOTP_SECRET}` },
      'otpauthUri',
    ],
    ['an unknown field', { secret: TOTP_SECRET }, 'secret'],
    ['an empty password', { password: '' }, 'password'],
    ['a long name', { name: 'n'.repeat(201) }, 'name'],
  ])('refuses %s with 400 naming the field, repeating no secret', async (_why, fields, field) => {
    const res = await create({ name: uniqueName('bad'), password: PASSWORD, ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expectNoSecret(res.text);
    // And a patch refuses it the same way.
    const id = await newCredential();
    const patched = await patch(id, { password: PASSWORD, ...fields });
    expect(patched.status).toBe(400);
    expectNoSecret(patched.text);
  });

  it('answers 404 for another organization’s credential and ids that cannot exist, and changes nothing', async () => {
    const id = await newCredential();
    expect((await get(id, stranger)).status).toBe(404);
    expect((await patch(id, { name: 'stolen' }, stranger)).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/credentials/${id}`).set(stranger.auth('write'))).status).toBe(404);
    expect((await get(id)).body.name).not.toBe('stolen');
    const listed = await request(h.app).get('/api/v1/credentials').set(stranger.auth('read'));
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(id);
    for (const bad of ['crd_x', 'bot_01kdvdna00q3v6n9r2t8w4y5z7', 'nope']) {
      const res = await get(bad);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'Credential not found' });
    }
  });

  it.each([
    ['no origins', { origins: undefined }, 'origins'],
    ['an empty list', { origins: [] }, 'origins'],
    ['21 origins', { origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`) }, 'origins'],
    ['an ftp origin', { origins: ['ftp://shop.example'] }, 'origins.0'],
    ['a javascript: URL', { origins: [SHOP, 'javascript:alert(1)'] }, 'origins.1'],
    ['a path', { origins: ['https://shop.example/login'] }, 'origins.0'],
    ['a query', { origins: ['https://shop.example?next=/'] }, 'origins.0'],
    ['user info', { origins: [`https://alice:${PASSWORD}@shop.example`] }, 'origins.0'],
    ['a bare host', { origins: ['shop.example'] }, 'origins.0'],
  ])('refuses a credential with %s (400 naming the field)', async (_why, fields, field) => {
    const res = await create({ name: uniqueName('nowhere'), password: PASSWORD, ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expectNoSecret(res.text);
  });

  it('normalises origins, and takes http:// only while the private network is open', async () => {
    const created = await create({
      name: uniqueName('normalised'),
      origins: ['HTTPS://Shop.Example:443/', 'https://login.shop.example:8443', 'https://shop.example'],
    });
    expect(created.status).toBe(201);
    expect(created.body.origins).toEqual([SHOP, 'https://login.shop.example:8443']);
    // The harness opens the private network (its test sites are on loopback).
    expect((await create({ name: uniqueName('local'), origins: ['http://127.0.0.1:3000'] })).status).toBe(201);

    const { port } = await h.listen({ allowPrivateNetwork: false });
    const closed = await request(`http://127.0.0.1:${port}`)
      .post('/api/v1/credentials')
      .set(org.auth('write'))
      .send({ name: uniqueName('closed'), origins: [SHOP, 'http://127.0.0.1:3000'] });
    expect(closed.status).toBe(400);
    expect(closed.body.error).toMatchObject({
      code: 'validation_error',
      details: [
        expect.objectContaining({ path: 'origins.1', message: expect.stringContaining('ALLOW_PRIVATE_NETWORK') }),
      ],
    });
    const id = await newCredential();
    const patched = await request(`http://127.0.0.1:${port}`)
      .patch(`/api/v1/credentials/${id}`)
      .set(org.auth('admin'))
      .send({ origins: ['http://shop.example'] });
    expect(patched.status).toBe(400);
  });

  it('lets only an admin key change the origins; a write key still rotates the rest', async () => {
    const id = await newCredential();
    const widened = await patch(id, { origins: [SHOP, 'https://attacker.example'] });
    expect(widened.status).toBe(403);
    expect(widened.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('admin key') });
    expect((await get(id)).body.origins).toEqual([SHOP]);
    // Along with an allowed change the whole patch is refused: nothing of it is written.
    expect((await patch(id, { name: 'renamed-with', origins: ['https://attacker.example'] })).status).toBe(403);
    expect((await get(id)).body.name).not.toBe('renamed-with');
    expect((await patch(id, { password: NEW_PASSWORD })).status).toBe(200);

    const asAdmin = await request(h.app)
      .patch(`/api/v1/credentials/${id}`)
      .set(org.auth('admin'))
      .send({ origins: ['https://login.shop.example'] });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.origins).toEqual(['https://login.shop.example']);
  });

  it('shows a credential stored before origins existed with none', async () => {
    const id = await newCredential();
    await h.db.credential.update({ where: { id }, data: { origins: [] } });
    expect((await get(id)).body.origins).toEqual([]);
  });

  it('needs a write key to change one', async () => {
    expect((await request(h.app).post('/api/v1/credentials').set(org.auth('read')).send({ name: 'r' })).status).toBe(
      403,
    );
  });
});

describe('steps that fill from a credential', () => {
  it('stores the reference, refuses to delete the credential while steps use it, then deletes it', async () => {
    const id = await newCredential({ totpSecret: TOTP_SECRET });
    const botId = await h.newBot(org);
    const steps = [
      { action: 'fill', selector: '#user', value: { credential: id, field: 'username' } },
      { action: 'fill', selector: '#pass', value: { credential: id, field: 'password' } },
      { action: 'fill', selector: '#otp', value: { credential: id, field: 'totp' } },
    ];
    const res = await putSteps(botId, steps);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { value: unknown }) => s.value)).toEqual(steps.map((s) => s.value));

    const refused = await request(h.app).delete(`/api/v1/credentials/${id}`).set(org.auth('write'));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { bots: [botId] } });
    expect(refused.body.error.message).toContain(botId);
    expect((await get(id)).status).toBe(200);

    expect((await putSteps(botId, [{ action: 'click', selector: '#go' }])).status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/credentials/${id}`).set(org.auth('write'))).status).toBe(204);
  });

  it('answers 404 for a credential of another organization or none, and writes nothing', async () => {
    const theirs = await newCredentialOf(stranger);
    const botId = await h.newBot(org, {}, { steps: [{ action: 'click', selector: '#kept' }] });
    for (const credential of [theirs, 'crd_01kdvdna00q3v6n9r2t8w4y5z7', 'not-an-id']) {
      const res = await putSteps(botId, [
        { action: 'click', selector: '#go' },
        { action: 'fill', selector: '#pass', value: { credential, field: 'password' } },
      ]);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.message).toContain(credential);
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'steps.1.value' })]);
    }
    expect((await loadSteps(h.db, botId)).map((s) => s.action === 'click' && s.selector)).toEqual(['#kept']);
  });

  it('answers 400 naming steps.<i>.value for a field the credential lacks, and writes nothing', async () => {
    const bare = (await create({ name: uniqueName('bare') })).body.id as string;
    const botId = await h.newBot(org, {}, { steps: [{ action: 'click', selector: '#kept' }] });
    const res = await putSteps(botId, [
      { action: 'fill', selector: '#user', value: { credential: bare, field: 'username' } },
      { action: 'fill', selector: '#pass', value: { credential: bare, field: 'password' } },
      { action: 'fill', selector: '#otp', value: { credential: bare, field: 'totp' } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'steps.0.value', message: `credential ${bare} has no username`, in: 'body' },
      { path: 'steps.1.value', message: `credential ${bare} has no password`, in: 'body' },
      { path: 'steps.2.value', message: `credential ${bare} has no totp`, in: 'body' },
    ]);
    expect((await loadSteps(h.db, botId)).length).toBe(1);
  });

  it('refuses a fill value that is neither text nor a credential field', async () => {
    const botId = await h.newBot(org);
    const res = await putSteps(botId, [
      { action: 'fill', selector: '#pass', value: { credential: 'crd_x', field: 'pin' } },
    ]);
    expect(res.status).toBe(400);
  });
});

async function newCredentialOf(owner: TestOrg): Promise<string> {
  return (await create({ name: uniqueName('theirs'), password: PASSWORD }, owner)).body.id as string;
}

describe('recordings', () => {
  const recording = (credentials?: object[]) => ({
    title: 'Log in',
    steps: [
      { type: 'navigate', url: 'https://a.example/' },
      { type: 'change', selectors: [['#user']], value: 'alice' },
      { type: 'change', selectors: [['#pass']], value: RECORDED_TEXT },
      { type: 'click', selectors: [['#go']], offsetX: 1, offsetY: 1 },
    ],
    ...(credentials ? { credentials } : {}),
  });
  const importInto = (botId: string, body: object) =>
    request(h.app).post(`/api/v1/bots/${botId}/steps/import`).set(org.auth('admin')).send(body);

  it('binds a recorded change step to a credential: the reference is stored, the recorded text is not', async () => {
    const id = await newCredential();
    const botId = await h.newBot(org);
    const res = await importInto(botId, recording([{ step: 2, credential: id, field: 'password' }]));
    expect(res.status).toBe(200);
    expect(res.body.data[1]).toMatchObject({
      action: 'fill',
      selector: [['#pass']],
      value: { credential: id, field: 'password' },
    });
    expect(res.body.warnings).toEqual([]);
    expectNoSecret(res.text);
    const rows = await h.db.recordedStep.findMany({ where: { botId } });
    expectNoSecret(JSON.stringify(rows));
    const script = await request(h.app).get(`/api/v1/bots/${botId}/scripts`).set(org.auth('read'));
    expectNoSecret(script.text);
    expect(script.text).toContain(id);

    // The export leaves the value empty and binds the step again, so a re-import gives the same steps.
    const exported = await request(h.app).get(`/api/v1/bots/${botId}/steps?format=recorder`).set(org.auth('read'));
    expect(exported.status).toBe(200);
    expectNoSecret(exported.text);
    const change = exported.body.steps.findIndex((s: { selectors?: string[][] }) => s.selectors?.[0]?.[0] === '#pass');
    expect(exported.body.steps[change]).toMatchObject({ type: 'change', value: '' });
    expect(exported.body.credentials).toEqual([{ step: change, credential: id, field: 'password' }]);
    const again = await importInto(botId, exported.body as object);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(res.body.data);
  });

  it('does the same for a bot created from a recording', async () => {
    const id = await newCredential();
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('admin'))
      .send({ recording: recording([{ step: 1, credential: id, field: 'username' }]) });
    expect(res.status).toBe(201);
    const steps = await loadSteps(h.db, res.body.id);
    expect(steps[0]).toMatchObject({ action: 'fill', value: { credential: id, field: 'username' } });
  });

  it.each([
    ['a click step', [{ step: 3, field: 'password' }], /a 'click' step/],
    ['a step the recording lacks', [{ step: 9, field: 'password' }], /does not have/],
    [
      'one step twice',
      [
        { step: 2, field: 'password' },
        { step: 2, field: 'username' },
      ],
      /second time/,
    ],
    ['an unknown field', [{ step: 2, field: 'pin' }], /.+/],
  ])(
    'refuses a binding of %s (400 invalid_recording naming it) and writes nothing',
    async (_why, bindings, message) => {
      const id = await newCredential();
      const botId = await h.newBot(org, {}, { steps: [{ action: 'click', selector: '#kept' }] });
      const res = await importInto(botId, recording(bindings.map((b) => ({ credential: id, ...b }))));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toMatch(/^(invalid_recording|validation_error)$/);
      const detail = res.body.error.details.find((d: { path: string }) => /credentials\.\d/.test(d.path));
      expect(detail.message).toMatch(message);
      expectNoSecret(res.text);
      expect((await loadSteps(h.db, botId)).length).toBe(1);
    },
  );

  it('answers 404 for a binding to another organization’s credential, and 400 for a missing field', async () => {
    const botId = await h.newBot(org, {}, { steps: [{ action: 'click', selector: '#kept' }] });
    const theirs = await newCredentialOf(stranger);
    const unknown = await importInto(botId, recording([{ step: 2, credential: theirs, field: 'password' }]));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details).toEqual([expect.objectContaining({ path: 'credentials.0' })]);
    const bare = (await create({ name: uniqueName('bare') })).body.id as string;
    const lacking = await importInto(botId, recording([{ step: 2, credential: bare, field: 'totp' }]));
    expect(lacking.status).toBe(400);
    expect(lacking.body.error.details).toEqual([
      { path: 'credentials.0', message: `credential ${bare} has no totp`, in: 'body' },
    ]);
    expect((await loadSteps(h.db, botId)).length).toBe(1);
    const created = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('admin'))
      .send({ name: 'never', recording: recording([{ step: 2, credential: theirs, field: 'password' }]) });
    expect(created.status).toBe(404);
    const bots = await request(h.app).get('/api/v1/bots?limit=100').set(org.auth('read'));
    expect(bots.body.data.map((b: { name: string }) => b.name)).not.toContain('never');
  });
});
