/**
 * Debian's headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * NUL-terminated JSON on file descriptors 3 and 4), with no npm dependency. Used by the HTML report
 * test to load a page from a file and read what happened: console errors, uncaught exceptions,
 * every network request, and values evaluated in the page; and to take screenshots.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'

/** Where Debian's `chromium` package puts the browser; `CHROMIUM` overrides it. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'

/** What a page did while it loaded. */
export interface PageLog {
  /** `console.error` / `console.warn` calls, uncaught exceptions and browser log errors (CSP included). */
  errors: string[]
  /** Every URL the page asked for, the page itself excluded. */
  requests: string[]
}

type Message = {
  id?: number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { message: string }
  sessionId?: string
}

/** One browser; one tab at a time. Close it with {@link Browser.close}. */
export class Browser {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>()
  private readonly listeners = new Set<(m: Message) => void>()
  private buffer = ''

  private readonly child: ChildProcess
  private readonly profile: string

  private constructor(child: ChildProcess, profile: string) {
    this.child = child
    this.profile = profile
    const out = child.stdio[4] as Readable
    out.setEncoding('utf8')
    out.on('data', (chunk: string) => {
      this.buffer += chunk
      let end = this.buffer.indexOf('\0')
      while (end >= 0) {
        const message = JSON.parse(this.buffer.slice(0, end)) as Message
        this.buffer = this.buffer.slice(end + 1)
        if (message.id !== undefined) {
          const waiter = this.pending.get(message.id)
          this.pending.delete(message.id)
          if (message.error) waiter?.reject(new Error(message.error.message))
          else waiter?.resolve(message)
        } else for (const l of this.listeners) l(message)
        end = this.buffer.indexOf('\0')
      }
    })
  }

  /** Starts headless Chromium with a fresh profile. */
  static async launch(): Promise<Browser> {
    const profile = await mkdtemp(join(tmpdir(), 'servebench-chromium-'))
    const child = spawn(
      CHROMIUM,
      [
        '--headless',
        '--remote-debugging-pipe',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--no-default-browser-check',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    )
    return new Browser(child, profile)
  }

  /** One DevTools command; `sessionId` sends it to a page. */
  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++
    const input = this.child.stdio[3] as Writable
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: (m) => resolve(m.result ?? {}), reject })
      input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`)
    })
  }

  /**
   * Opens `file` in a new tab of the given size, waits for its load event and for `ready` (a
   * JavaScript expression) to be truthy, and returns the tab's session with what it logged.
   */
  async open(file: string, size: { width: number; height: number }, ready: string): Promise<Page> {
    const url = pathToFileURL(file).href
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as {
      targetId: string
    }
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string
    }
    const log: PageLog = { errors: [], requests: [] }
    let loaded!: () => void
    const load = new Promise<void>((resolve) => {
      loaded = resolve
    })
    this.listeners.add((m) => {
      if (m.sessionId !== sessionId || !m.params) return
      // biome-ignore lint/suspicious/noExplicitAny: DevTools event parameters, read field by field
      const p = m.params as Record<string, any>
      if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'warning'))
        log.errors.push(
          `console.${p.type}: ${p.args.map((a: { value?: unknown; description?: string }) => a.value ?? a.description).join(' ')}`,
        )
      if (m.method === 'Runtime.exceptionThrown')
        log.errors.push(
          `exception: ${p.exceptionDetails?.exception?.description ?? p.exceptionDetails?.text}`,
        )
      if (m.method === 'Log.entryAdded' && p.entry.level === 'error') log.errors.push(`log: ${p.entry.text}`)
      if (m.method === 'Network.requestWillBeSent' && p.request.url !== url) log.requests.push(p.request.url)
      if (m.method === 'Page.loadEventFired') loaded()
    })
    for (const domain of ['Runtime', 'Log', 'Network', 'Page'])
      await this.send(`${domain}.enable`, {}, sessionId)
    await this.send(
      'Emulation.setDeviceMetricsOverride',
      { ...size, deviceScaleFactor: 1, mobile: false },
      sessionId,
    )
    await this.send('Page.navigate', { url }, sessionId)
    await load
    const page = new Page(this, sessionId, log)
    for (let i = 0; i < 100 && !(await page.evaluate(ready)); i++) await new Promise((r) => setTimeout(r, 50))
    return page
  }

  async close(): Promise<void> {
    await this.send('Browser.close').catch(() => {})
    await new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) resolve()
      else this.child.once('exit', () => resolve())
      setTimeout(() => {
        this.child.kill('SIGKILL')
        resolve()
      }, 5_000).unref()
    })
    await rm(this.profile, { recursive: true, force: true })
  }
}

/** An open tab. */
export class Page {
  private readonly browser: Browser
  private readonly sessionId: string
  readonly log: PageLog

  constructor(browser: Browser, sessionId: string, log: PageLog) {
    this.browser = browser
    this.sessionId = sessionId
    this.log = log
  }

  /** The value of a JavaScript expression in the page (JSON-serialisable). */
  async evaluate<T = unknown>(expression: string): Promise<T> {
    const r = (await this.browser.send(
      'Runtime.evaluate',
      { expression, returnByValue: true },
      this.sessionId,
    )) as {
      result: { value?: T }
      exceptionDetails?: { text: string }
    }
    if (r.exceptionDetails) throw new Error(`evaluate failed: ${r.exceptionDetails.text}`)
    return r.result.value as T
  }

  /** A PNG of the region `clip` (CSS pixels; the whole viewport without it) written to `path`. */
  async screenshot(
    path: string,
    clip?: { x: number; y: number; width: number; height: number },
  ): Promise<void> {
    const { data } = (await this.browser.send(
      'Page.captureScreenshot',
      { format: 'png', ...(clip ? { clip: { ...clip, scale: 1 }, captureBeyondViewport: true } : {}) },
      this.sessionId,
    )) as { data: string }
    await writeFile(path, Buffer.from(data, 'base64'))
  }
}

/** Whether the browser is there; the test fails on CI without it (`.ci/run` installs it). */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM)
}
