import type { Config } from 'jest';

// One Jest run for the whole monorepo. TypeScript is stripped by SWC (fast); types are checked
// separately by `tsc` in `npm test`. Test files sit beside the code they test.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs', 'mjs'],
  testTimeout: 60_000,
  // Browser suites are heavy; two cores do best with two Jest workers.
  maxWorkers: 2,
  setupFiles: ['<rootDir>/test/jest.setup.ts'],
};

export default config;
