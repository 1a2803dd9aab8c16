import { defineConfig } from 'vitest/config';
import { localSandboxEnvironment } from './infra/stages.ts';
import LongestFirst from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // The longest files start first, so that the two workers finish together (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // Three test files at a time (vitest's default on two cores is one): most of a file's time is spent
    // waiting on DynamoDB Local, PowerDNS, Pebble and timers, so the others fill it. Each file has
    // a table of its own; TEST_WORKERS=1 runs them one by one.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 3),
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    env: {
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT',
      AWS_REGION: 'eu-west-1',
      // The tests run the sandbox integrations, chosen explicitly as `npm start` chooses them.
      ...localSandboxEnvironment,
      ONE_TIME_LINK_SECRET: 'test-one-time-link-secret-0123456789abcdef',
      // The local key that seals webhook secrets (npm start keeps one in its data dir).
      WEBHOOK_SECRETS_LOCAL_KEY: Buffer.from('test-webhook-secrets-key-0123456').toString('base64'),
    },
  },
});
