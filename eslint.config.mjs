// ESLint: typescript-eslint's type-aware rules catch the mistakes that cost most in a queue-driven
// service (a promise nobody awaits, an async callback where a sync one is expected, a switch that
// forgets a case). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/db/src/generated/**',
      // Written by @hey-api/openapi-ts from openapi.json (npm run sdk:generate), never by hand.
      'packages/sdk/src/generated/**',
      'coverage/**',
      '.data/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'error',
    },
  },
  {
    // Code the product sends into a page is declared with @botfleet/core's definePageFunction, so
    // that it runs as written whichever loader compiled it (packages/core/src/page-function.ts).
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', 'apps/console/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(evaluate|evaluateAll|evaluateHandle|\\$eval|\\$\\$eval|addInitScript|waitForFunction)$/] > :matches(ArrowFunctionExpression, FunctionExpression)',
          message: 'Declare code that runs in the page with definePageFunction (@botfleet/core), not inline.',
        },
      ],
    },
  },
  {
    // Command-line tools talk to a terminal.
    files: ['**/*-cli.ts', '**/cli.ts', 'scripts/**', 'packages/*/scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  {
    // CommonJS files (e.g. apps/cli/bin/botfleet.cjs) load modules with require, as CommonJS does.
    files: ['**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
