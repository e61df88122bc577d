import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // dynalite, the SMTP and DNS servers run in-process: tests own their clocks (no fake timers).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'silent' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit-integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/browser/**', 'test/blackbox/**'],
        },
      },
      {
        // Real Chromium: one file at a time, since parallel first launches would unpack the binary
        // into the temp folder concurrently. The black-box suite's service launches Chromium too.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts', 'test/blackbox/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
    ],
  },
});
