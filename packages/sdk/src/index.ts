// @botfleet/sdk: the typed client of the botfleet API. Everything under ./generated is produced by
// @hey-api/openapi-ts from openapi.json (npm run sdk:generate); the rest is written by hand.
export * from './generated';
// The components' JSON Schemas (StepSchema...): data to build forms from, as the API validates.
export * from './generated/schemas.gen';
export type { Client } from './generated/client';
export * from './api-error';
export * from './create-client';
export * from './wait-for-execution';
export * from './results-export';
export * from './follow-events';
