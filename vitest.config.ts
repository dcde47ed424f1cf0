import { defineConfig } from 'vitest/config'

// The repository's own tests. `suites/` (the product's example suites) has its own config.
//
// Where a test goes (CONTRIBUTING.md, "Tests"):
// - `unit`, `src/**/<name>.test.ts`: pure and fast. No sockets (test/setup/no-sockets.ts fails a
//   listen or connect), no assertion on elapsed time, no tokenizer.json from node_modules (the
//   built-in tiktoken encodings are allowed: cl100k_base loads in about 0.3 s of CPU).
// - `integration`, `src/**/<name>.int.test.ts`: next to the module, but with a local server on
//   127.0.0.1:0 (the simulator, a fake hub, a script server), a child process or worker thread, or
//   a Hugging Face tokenizer.json (test/tokenizers.ts loads each once per worker).
// - `e2e`, `test/**/*.test.ts`: the CLI and real Vitest projects against the simulator. They may
//   assert lower bounds on timings (a load only adds time) and relations, never upper bounds.
// - `v8`, `<name>.v8.test.ts` anywhere: assertions on V8's hidden classes (test/hidden-class.ts). Each
//   file in a fresh process started with --allow-natives-syntax, so what other files ran cannot
//   change V8's state.
// - `serial`, `test/serial/**` and `src/**/<name>.serial.test.ts`: assertions on elapsed time or on
//   latencies against configured timings. Alone, after the other projects, one file at a time;
//   tight bounds are skipped when the machine is busy with other work (test/serial/cpu-share.ts).
// Every project seeds fast-check (test/setup/fast-check.ts); test/test-config.test.ts checks both.
const SEEDED = 'test/setup/fast-check.ts'
// The projects that run the built package fail at once on a stale dist/.
const FRESH_DIST = 'test/setup/fresh-dist.ts'

export default defineConfig({
  test: {
    // Two files at a time on a 2-core machine (Vitest's default is one there): the e2e files spend
    // most of their time waiting on the CLI and Vitest processes they start.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.int.test.ts', 'src/**/*.serial.test.ts', '**/*.v8.test.ts'],
          setupFiles: [SEEDED, 'test/setup/no-sockets.ts'],
          // Pure tests share one module graph per worker: importing the graph again for each of ~70
          // files cost most of the project's time (CONTRIBUTING.md, "Tests"). A test undoes what
          // it changes (env, globals and spies are undone here; fake timers it restores itself).
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          restoreMocks: true,
          typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'] },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['src/**/*.int.test.ts'],
          setupFiles: [SEEDED],
          // One module graph per worker, so a tokenizer.json is parsed once per worker rather than once
          // per file (measured in CONTRIBUTING.md, "Tests"). Env stubs, globals and spies are
          // undone after each test, so files cannot leak them to the next.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          restoreMocks: true,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts'],
          exclude: ['test/serial/**', 'test/projects/**', '**/*.v8.test.ts'],
          setupFiles: [SEEDED],
          globalSetup: [FRESH_DIST],
          // As in `integration`: one module graph per worker (most of these files import the same
          // helpers, schema and runner), state undone after each test.
          isolate: false,
          unstubEnvs: true,
          unstubGlobals: true,
          restoreMocks: true,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'v8',
          include: ['src/**/*.v8.test.ts', 'test/**/*.v8.test.ts'],
          setupFiles: [SEEDED],
          pool: 'forks',
          isolate: true,
          execArgv: ['--allow-natives-syntax'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'serial',
          include: ['test/serial/**/*.test.ts', 'src/**/*.serial.test.ts'],
          setupFiles: [SEEDED],
          globalSetup: [FRESH_DIST],
          // After the other projects (group 0) have finished, and one file at a time: nothing else
          // of `npm test` competes for the CPUs while these tests measure.
          sequence: { groupOrder: 1 },
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
