export * from './ops';
export * from './ops-server';
export * from './probes';
export * from './fleet-metrics';
export * from './fleet-role';
export * from './queue-depth';
export * from './readiness';
export * from './summed-metrics';
