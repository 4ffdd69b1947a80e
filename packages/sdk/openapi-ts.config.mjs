// @hey-api/openapi-ts: generates the typed client in src/generated from the repository's
// openapi.json (`npm run sdk:generate` at the root). The generated code is committed; never edit
// it by hand. Paths are resolved from this file, so it runs from any directory.
import { defineConfig } from '@hey-api/openapi-ts';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  input: here('../../openapi.json'),
  // SDK_OUTPUT_DIR: where generated-sdk.test.ts regenerates it, to compare with the committed code.
  output: { path: process.env.SDK_OUTPUT_DIR ?? here('./src/generated'), clean: true },
  // @hey-api/schemas: the components' JSON Schemas as constants (schemas.gen.ts), for clients that
  // build forms from them (the console's steps editor reads StepSchema, the step registry's union).
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk', '@hey-api/schemas'],
});
