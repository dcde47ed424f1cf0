import { expect } from 'vitest'
import { servebenchMatchers } from './matchers.ts'

// Loaded through `setupFiles` by the servebench() plugin, in both `vitest run` and `vitest bench`.
expect.extend(servebenchMatchers)
