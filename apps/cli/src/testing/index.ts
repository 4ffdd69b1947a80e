export * from './journey-fixture';
