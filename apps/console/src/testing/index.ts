export * from './console-fixture';
export * from './page-guard';
export * from './console-page';
