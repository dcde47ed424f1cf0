import { defineConfig } from 'vitest/config'

// servebench's own micro-benchmarks (perf/micro/*.bench.ts), run by `npm run perf:micro`
// (`vitest bench`, tinybench underneath). Not part of `npm test`: a slower hot path shows up as a
// number here, never as a failed test.
export default defineConfig({
  test: {
    name: 'micro',
    include: [],
    benchmark: { include: ['perf/micro/**/*.bench.ts'] },
  },
})
