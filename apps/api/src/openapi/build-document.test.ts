import { z } from 'zod';
import { defineRoute } from '../http/route';
import { buildOpenApiDocument } from './build-document';

/* How route definitions become the document, on a route table of its own (no database). */

const Widget = z.object({ name: z.string(), size: z.number().int().default(1) }).meta({ id: 'TestWidget' });

const routes = [
  defineRoute(
    {
      method: 'post',
      path: '/widgets',
      operationId: 'createWidget',
      tag: 'Widgets',
      summary: 'Create a widget',
      permission: 'write',
      body: Widget,
      responses: { 201: { description: 'The widget', schema: Widget, headers: { Location: 'Path of the widget' } } },
    },
    async () => ({ status: 201, body: { name: 'w', size: 1 } }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/widgets/:widgetId/picture',
      operationId: 'getWidgetPicture',
      tag: 'Widgets',
      summary: 'A picture of the widget',
      description: 'Signed URLs only.',
      permission: null,
      params: z.strictObject({ widgetId: z.string().describe('Widget id') }),
      responses: { 200: { description: 'The picture', mediaType: 'image/png' }, 409: { description: 'Not drawn yet' } },
    },
    async () => ({ status: 200, handled: true }) as const,
  ),
];
const doc = buildOpenApiDocument(routes, { version: '9.9.9', serverUrl: '/api/v1' });
type Operation = { description: string; parameters: object[]; responses: Record<string, Record<string, unknown>> };
const op = (path: string, method: string) => (doc.paths[path] as Record<string, Operation>)[method]!;

it('shares a schema that is a request and a response under two names when their shapes differ', () => {
  const create = op('/widgets', 'post') as Operation & { requestBody: { content: Record<string, { schema: object }> } };
  expect(create.requestBody.content['application/json']!.schema).toEqual({
    $ref: '#/components/schemas/TestWidgetInput',
  });
  expect(create.responses['201']!.content).toEqual({
    'application/json': { schema: { $ref: '#/components/schemas/TestWidget' } },
  });
  // The default makes `size` optional in a request and always present in a response.
  expect(doc.components.schemas.TestWidget).toMatchObject({ required: ['name', 'size'] });
  expect(doc.components.schemas.TestWidgetInput).toMatchObject({ required: ['name'] });
});

it('documents declared headers, non-JSON bodies, a route’s own errors and the permission', () => {
  expect(op('/widgets', 'post').responses['201']!.headers).toEqual({
    'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
    Location: { description: 'Path of the widget', schema: { type: 'string' } },
  });
  expect(op('/widgets', 'post').description).toBe('Needs an API key with the `write` permission.');
  const picture = op('/widgets/{widgetId}/picture', 'get');
  expect(picture.description).toBe('Signed URLs only.\n\nNeeds no API key: the URL carries its own signature.');
  expect(picture.responses['200']!.content).toEqual({ 'image/png': { schema: { type: 'string', format: 'binary' } } });
  expect(picture.responses['409']).toMatchObject({
    description: 'Not drawn yet',
    content: { 'application/json': { example: { error: { code: 'conflict', message: 'Not drawn yet' } } } },
  });
  // Public: no 401 or 429, and the path parameter carries its description.
  expect(Object.keys(picture.responses)).toEqual(['200', '400', '404', '409', '500', '503']);
  expect(picture.parameters).toEqual([
    { name: 'widgetId', in: 'path', required: true, description: 'Widget id', schema: { type: 'string' } },
  ]);
});

it('lists only the shared responses and tags in use', () => {
  expect(Object.keys(doc.components.responses).sort()).toEqual(
    [
      'BadRequest',
      'Forbidden',
      'InternalError',
      'NotFound',
      'PayloadTooLarge',
      'RateLimited',
      'RequestTimeout',
      'Unauthorized',
      'Unavailable',
      'UnsupportedMediaType',
    ].sort(),
  );
  expect(doc.tags).toEqual([{ name: 'Widgets' }]);
  expect(doc.info.version).toBe('9.9.9');
});

it('documents the other media types a JSON response may be answered in', () => {
  const exported = defineRoute(
    {
      method: 'get',
      path: '/widgets/export',
      operationId: 'exportWidgets',
      tag: 'Widgets',
      summary: 'Every widget, as JSON or CSV',
      permission: 'read',
      responses: { 200: { description: 'The widgets', schema: z.array(Widget), alsoMediaTypes: ['text/csv'] } },
    },
    async () => ({ status: 200, handled: true }) as const,
  );
  const document = buildOpenApiDocument([exported], { version: '9.9.9', serverUrl: '/api/v1' });
  const operation = (document.paths['/widgets/export'] as Record<string, Operation>).get!;
  expect(operation.responses['200']!.content).toEqual({
    'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/TestWidget' } } },
    'text/csv': { schema: { type: 'string' } },
  });
});
