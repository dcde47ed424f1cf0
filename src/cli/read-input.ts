import { readFile } from 'node:fs/promises'
import { ConfigError } from '../errors.ts'

/**
 * The text of a file a command was given. A file that cannot be read is a usage error naming it,
 * or the flag that gave it (`--history: h.jsonl cannot be read (ENOENT)`), with the error code.
 */
export async function readInputText(path: string, flag?: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message
    const issue = flag
      ? { path: flag, message: `${path} cannot be read (${code})` }
      : { path, message: `cannot be read (${code})` }
    throw new ConfigError([issue], { cause: error })
  }
}
