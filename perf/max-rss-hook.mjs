// Loaded with `node --import` into a measured child: at exit, its peak RSS (KiB) goes to the file
// named by SERVEBENCH_PERF_RSS_FILE, whatever the exit code.
import { writeFileSync } from 'node:fs'

const file = process.env.SERVEBENCH_PERF_RSS_FILE
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)))
