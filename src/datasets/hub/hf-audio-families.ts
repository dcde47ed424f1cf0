import { readFile, stat } from 'node:fs/promises'
import { dirname, isAbsolute, join } from 'node:path'
import type { DatasetFlagContext } from '../../config/dataset-flag-checks.ts'
import type { AudioInput, SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { type ConfigIssue, DatasetError } from '../../errors.ts'
import { hubFile } from '../../tokenizer/hub.ts'
import { AudioHeaderError, audioInputOf } from '../audio-duration.ts'
import { flagRow } from '../dataset-module.ts'
import type { DatasetContext } from '../index.ts'
import type { HfDatasetConfig } from './hf.ts'
import type { Row } from './hf-columns.ts'
import { hubDatasetError } from './hub-sampling.ts'

/** Python `ASRDataset.DEFAULT_OUTPUT_LEN`: `max_completion_tokens` without `--hf-output-len`. */
export const ASR_DEFAULT_OUTPUT_LEN = 1024

/**
 * Python `ASRDataset.EARNINGS22_CLEANED_DATASET`: its rows name MP3 files of the repository in a
 * `url` column (with the text in `transcript`) instead of holding an audio column.
 */
export const EARNINGS22_CLEANED_ID = 'ArtificialAnalysis/Earnings22-Cleaned-AA'

/** Python `ASRDataset.SUPPORTED_DATASET_PATHS`: the speech datasets read as transcription requests. */
export const ASR_DATASET_IDS: readonly string[] = [
  'openslr/librispeech_asr',
  'facebook/voxpopuli',
  'LIUM/tedlium',
  'edinburghcstr/ami',
  'speechcolab/gigaspeech',
  'kensho/spgispeech',
  'D4nt3/esb-datasets-earnings22-validation-tiny-filtered',
  EARNINGS22_CLEANED_ID,
]

/** Whether a dataset id (`--hf-name`, else `--dataset-path`) is one of the ASR families. */
export function isAsrDataset(id: string): boolean {
  return ASR_DATASET_IDS.includes(id)
}

// Python `ASRDataset.sample`: the decoder prompt depends on the tokenizer's name.
const WHISPER_PROMPT = '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>'
const COHERE_PROMPT =
  '<|startofcontext|><|startoftranscript|><|emo:undefined|><|en|><|en|><|pnc|><|noitn|><|notimestamp|><|nodiarize|>'

/**
 * The text prompt Python counts for an ASR request: Whisper's control tokens when the tokenizer
 * id contains `openai`, Cohere's when it contains `cohere` (any case), else empty. It sets
 * `prompt_len` only: the transcription form carries no prompt field.
 */
export function asrPrompt(tokenizerId: string): string {
  if (tokenizerId.includes('openai')) return WHISPER_PROMPT
  if (tokenizerId.toLowerCase().includes('cohere')) return COHERE_PROMPT
  return ''
}

/**
 * Python `ASRDataset.sample` over rows already shuffled (`indices`): each row's `audio` column
 * (a `{bytes, path}` struct of WAV, FLAC or MP3 bytes, or a local file path) becomes the request's
 * audio; Earnings22-Cleaned-AA's `url` names a file of its repository (downloaded through the hub
 * cache, or next to a local `--dataset-path`). Rows whose duration lies outside
 * `--asr-min-audio-len-sec` / `--asr-max-audio-len-sec` are skipped, with one warning counting
 * them. Output length: `--hf-output-len`, else 1024. Audio servebench cannot time (Ogg, ...) is an
 * error naming the row, as a row soundfile cannot decode stops Python. Python has no chat path
 * for these datasets (its request carries decoded audio or a file path), so only `openai-audio`
 * is accepted.
 */
export async function sampleAsr(
  rows: Row[],
  indices: number[],
  config: HfDatasetConfig,
  { tokenizer, numPrompts, backend }: DatasetContext,
): Promise<SampleRequest[]> {
  const id = config.hfName ?? config.path
  if (backend !== 'openai-audio') {
    throw new DatasetError(
      `hf: ${id} is an ASR dataset: it needs --backend openai-audio, which sends its audio for transcription ` +
        `(got ${backend ?? 'a completions backend'}; audio goes to openai-chat through custom_audio with --enable-multimodal-chat)`,
    )
  }
  const prompt = asrPrompt(tokenizer.id)
  const promptLen = (await tokenizer.encode(prompt, { addSpecialTokens: true })).length
  const expectedOutputLen = config.outputLen ?? ASR_DEFAULT_OUTPUT_LEN
  const min = config.asrAudioLenS?.min ?? 0
  const max = config.asrAudioLenS?.max ?? Infinity
  const requests: SampleRequest[] = []
  let skipped = 0
  for (const index of indices) {
    if (requests.length >= numPrompts) break
    const audio =
      id === EARNINGS22_CLEANED_ID
        ? await repoFileAudio(rows[index]!, index, config.path)
        : await rowAudio(rows[index]!, index, id)
    if (audio.durationS < min || audio.durationS > max) {
      skipped++
      continue
    }
    requests.push({ prompt, promptLen, expectedOutputLen, audio })
  }
  if (requests.length === 0 && skipped > 0) {
    throw new DatasetError(
      `hf: ${id}: none of the ${skipped} rows read has audio between ${min} s and ${max} s ` +
        '(--asr-min-audio-len-sec, --asr-max-audio-len-sec)',
    )
  }
  if (skipped > 0) {
    console.warn(
      `servebench: hf: ${id}: ${skipped} rows skipped, their audio is shorter than ${min} s or longer than ${max} s ` +
        '(--asr-min-audio-len-sec, --asr-max-audio-len-sec)',
    )
  }
  return requests
}

/** The audio of one row: embedded bytes first, else a local file named by the row (Python's order). */
async function rowAudio(row: Row, index: number, id: string): Promise<AudioInput> {
  const where = `hf: ${id}: row ${index + 1}`
  const audio = row.audio as unknown
  let bytes: Uint8Array
  if (typeof audio === 'string' && audio !== '') {
    bytes = await readAudioFile(audio, where)
  } else if (isRecord(audio) && audio.bytes instanceof Uint8Array && audio.bytes.length > 0) {
    bytes = audio.bytes
  } else if (isRecord(audio) && typeof audio.path === 'string' && audio.path !== '') {
    bytes = await readAudioFile(audio.path, where)
  } else {
    throw new DatasetError(
      `${where}: the audio column must hold {bytes, path} with the audio bytes, or a local audio file path ` +
        `(got ${describe(audio)})`,
    )
  }
  return timed(bytes, where)
}

/**
 * Earnings22-Cleaned-AA: the row's `url` is a path in the repository (`audio/<id>.mp3`), read
 * from the hub cache (Python: `snapshot_download`), or next to a local `--dataset-path`.
 */
async function repoFileAudio(row: Row, index: number, dataset: string): Promise<AudioInput> {
  const where = `hf: ${EARNINGS22_CLEANED_ID}: row ${index + 1}`
  const url = row.url
  if (typeof url !== 'string' || url === '') {
    throw new DatasetError(
      `${where}: the url column must name the row's audio file in the repository (got ${url === undefined ? 'no url column' : describe(url)})`,
    )
  }
  const local = await stat(dataset).catch(() => undefined)
  if (local !== undefined) {
    const root = local.isDirectory() ? dataset : dirname(dataset)
    return timed(await readAudioFile(isAbsolute(url) ? url : join(root, url), where), where)
  }
  let path: string
  try {
    path = await hubFile(dataset, url, { type: 'dataset' })
  } catch (error) {
    throw hubDatasetError('hf', `${url} of ${dataset}`, error)
  }
  return timed(await readFile(path), where)
}

function timed(bytes: Uint8Array, where: string): AudioInput {
  try {
    return audioInputOf(bytes)
  } catch (error) {
    if (error instanceof AudioHeaderError)
      throw new DatasetError(`${where}: ${error.message}`, { cause: error })
    throw error
  }
}

async function readAudioFile(path: string, where: string): Promise<Uint8Array> {
  try {
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new DatasetError(
      `${where}: the audio file ${path} ${code === 'ENOENT' ? 'does not exist' : 'cannot be read'} ` +
        '(rows without audio bytes name a local file)',
      { cause: error },
    )
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  )
}

function describe(value: unknown): string {
  if (value === undefined) return 'no audio column'
  if (value === null) return 'null'
  if (isRecord(value)) return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`
  return Array.isArray(value) ? 'an array' : typeof value
}

export const ASR_MIN_AUDIO_LEN = flagRow(
  '--asr-min-audio-len-sec',
  'number',
  'hf ASR sets: skip rows whose audio is shorter (seconds).',
  { default: '0.0', parity: 'python' },
)
export const ASR_MAX_AUDIO_LEN = flagRow(
  '--asr-max-audio-len-sec',
  'number',
  'hf ASR sets: skip rows whose audio is longer (seconds).',
  { default: 'inf', parity: 'python' },
)

/** A min/max audio length in seconds, Python's defaults filled in (0 and infinity). */
export interface AudioLenRange {
  min: number
  max: number
}

/**
 * `--asr-min-audio-len-sec` / `--asr-max-audio-len-sec` (seconds, `inf` allowed for the max);
 * undefined when neither is given. An ASR dataset on another backend than openai-audio is an issue.
 */
export function readAsrFlags(
  read: Reader,
  datasetId: string | undefined,
  context: DatasetFlagContext,
): AudioLenRange | undefined {
  const { issues, backend } = context
  if (datasetId !== undefined && isAsrDataset(datasetId) && backend !== 'openai-audio') {
    issues.push({
      path: '--backend',
      message: `must be openai-audio for the ASR dataset ${datasetId} (it sends each row's audio for transcription; Python has no chat path for it); got ${backend}`,
    })
  }
  const seconds = (name: string): number | undefined => {
    const raw = read.string(name)
    if (raw === undefined) return undefined
    const value = /^\+?inf(inity)?$/i.test(raw.trim()) ? Infinity : Number(raw)
    if (raw.trim() === '' || Number.isNaN(value) || value < 0) {
      issues.push({ path: name, message: `must be a number of seconds ≥ 0 (got "${raw}")` })
      return undefined
    }
    return value
  }
  const min = seconds(ASR_MIN_AUDIO_LEN.name)
  const max = seconds(ASR_MAX_AUDIO_LEN.name)
  return audioLenRange(min, max, issues, ASR_MIN_AUDIO_LEN.name, ASR_MAX_AUDIO_LEN.name)
}

function audioLenRange(
  min: number | undefined,
  max: number | undefined,
  issues: ConfigIssue[],
  minPath: string,
  maxPath: string,
): AudioLenRange | undefined {
  if (min === undefined && max === undefined) return undefined
  const range = { min: min ?? 0, max: max ?? Infinity }
  if (range.min > range.max) {
    issues.push({ path: minPath, message: `must not exceed ${maxPath} (got ${range.min} > ${range.max})` })
  }
  return range
}
