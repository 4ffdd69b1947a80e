export * from './db-handle';
export * from './keyset';
export * from './organizations';
export * from './api-keys';
export * from './bots';
export * from './manifests';
export * from './executions';
export * from './execution-lifecycle';
