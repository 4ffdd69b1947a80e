export * from './guarded-lookup';
export * from './logger';
