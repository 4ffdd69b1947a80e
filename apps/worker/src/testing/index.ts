export * from './e2e-harness';
export * from './test-roles';
export * from './spawn-worker';
export * from './login-site';
