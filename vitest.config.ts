import { defineConfig } from 'vitest/config'

// The repository's own tests. `suites/` (the product's example suites) has its own config.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'] },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['test/serial/**', 'test/projects/**'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'serial',
          include: ['test/serial/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
