import type { Db } from '@botfleet/db';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { mountRoutes } from './mount-routes';
import { defineRoute, type Route } from './route';

/* Routes are grouped by their first segment: matching must stay what one router over all of them did. */

const Matched = z.object({ name: z.string(), route: z.string(), params: z.record(z.string(), z.unknown()) });

function route(method: 'get' | 'post', path: string, name: string): Route {
  return defineRoute(
    {
      method,
      path,
      operationId: name,
      summary: name,
      tag: 'Test',
      permission: null,
      responses: { 200: { description: 'Which route answered', schema: Matched } },
    },
    async ({ req }) => ({
      status: 200,
      body: { name, route: (req.route as { path: string }).path, params: { ...req.params } },
    }),
  );
}

const deps = {
  db: {} as Db,
  authenticate: () => Promise.reject(new Error('only public routes here')),
  checkRateLimit: () => Promise.resolve(),
};

function appOf(routes: Route[]) {
  const app = express();
  app.use('/api/v1', mountRoutes(routes, deps));
  app.use((_req, res) => {
    res.status(404).json({ name: 'unmatched' });
  });
  return app;
}

describe('mountRoutes', () => {
  const app = appOf([
    route('get', '/things/special', 'special thing'),
    route('get', '/things/:thingId', 'thing'),
    route('post', '/things/:thingId', 'change thing'),
    route('get', '/others/:otherId/parts', 'other parts'),
  ]);

  it('matches within the collection in declaration order, with the params and pattern of the route', async () => {
    expect((await request(app).get('/api/v1/things/special')).body).toEqual({
      name: 'special thing',
      route: '/things/special',
      params: {},
    });
    expect((await request(app).get('/api/v1/things/abc')).body).toEqual({
      name: 'thing',
      route: '/things/:thingId',
      params: { thingId: 'abc' },
    });
    expect((await request(app).post('/api/v1/things/abc')).body.name).toBe('change thing');
    expect((await request(app).get('/api/v1/others/o1/parts')).body).toEqual({
      name: 'other parts',
      route: '/others/:otherId/parts',
      params: { otherId: 'o1' },
    });
  });

  it('matches paths case-insensitively and with a trailing slash, as one Express router did', async () => {
    expect((await request(app).get('/api/v1/THINGS/abc/')).body.params).toEqual({ thingId: 'abc' });
  });

  it('passes on what no route of the collection (or no collection) matches', async () => {
    for (const path of ['/api/v1/things', '/api/v1/things/a/b', '/api/v1/nothing/a', '/api/v1', '/api/v1//things/a']) {
      const res = await request(app).get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { name: 'unmatched' } });
    }
  });

  it('answers OPTIONS with the methods of every route of the path', async () => {
    const res = await request(app).options('/api/v1/things/abc');
    expect(res.status).toBe(200);
    expect(res.headers.allow?.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('refuses a route whose path does not start with a literal segment', () => {
    expect(() => mountRoutes([route('get', '/:thingId', 'anything')], deps)).toThrow(/literal segment/);
  });
});
