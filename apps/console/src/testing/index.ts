export * from './console-fixture';
export * from './page-guard';
