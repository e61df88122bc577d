import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    // dynalite, the SMTP and DNS servers run in-process: tests own their clocks (no fake timers).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'silent' },
    // vitest's default is one worker less than the cores: one test file at a time on the 2-core CI
    // machine, idle while a file waits on its child processes, servers and Chromium. Two files at a
    // time keep both cores busy; every file binds port 0 and works in a temp folder of its own.
    maxWorkers: 2,
    globalSetup: ['test/support/unpack-chromium.ts'],
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
        // Real Chromium: side by side with the other files (the binary is unpacked once, by the
        // global setup). vitest runs a project without file parallelism after all the others, on
        // one worker: the other core sat idle through the browser files' six minutes.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // The black-box suite: `npm start` and `npm run start:synth` (every function in fresh Node
        // processes, Chromium unpacked per environment) with the other files done, one file at a
        // time, as a user runs them. Under the other files' load, one CI run saw start:synth's first
        // website request answer 502; alone, as before, it has passed in every CI run. Its files take
        // about two and a half minutes alone, and more than twice that beside the others.
        extends: true,
        test: {
          name: 'blackbox',
          include: ['test/blackbox/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
    ],
  },
});
