"""The Python peer client of `npm run perf -- python` (perf/python-peer.ts): vLLM's own client, as
`vllm bench serve --backend openai --dataset-name random` runs it, without vLLM installed.

Run with Debian's python3-aiohttp (its C HTTP parser in use, no uvloop, as vLLM's asyncio.run):
`/usr/bin/python3 perf/python-peer.py URL CONCURRENCY REQUESTS OUTPUT_TOKENS [--fresh-malloc]`
prints one JSON line: the process's CPU over the timed run and over its whole life, the HTTP
parser, and per request its send time, TTFT and ITL gaps.

What it mirrors, from vllm/benchmarks/serve.py `benchmark()`:
- one `aiohttp.ClientSession(trust_env=True, timeout=ClientTimeout(total=6 h))` over a
  `TCPConnector(limit=limit_per_host=concurrency, ttl_dns_cache=300, use_dns_cache=True,
  keepalive_timeout=60, enable_cleanup_closed=True, force_close=False)`; with `trust_env` aiohttp
  looks up the proxy environment (and ~/.netrc) on every request, as vLLM's does;
- `freeze_gc_heap()` (`gc.collect()` of each generation, then `gc.freeze()`) before the run, one
  initial test request (its ready check), then "Starting main benchmark run...";
- every request a task at once (request rate inf), each behind one `asyncio.Semaphore(concurrency)`,
  all awaited with `asyncio.gather`; no progress bar (`--disable-tqdm`).
From vllm/benchmarks/lib/endpoint_request_func.py `async_request_openai_completions`:
- the payload (`repetition_penalty` 1.0, `logprobs` None, `ignore_eos`, `stream_options`
  include_usage) and the `x-request-id` header;
- `response.content.iter_any()`, each chunk stripped and fed to `StreamedResponseHandler` (an
  incremental UTF-8 decoder, `buffer +=`, `split("\\n\\n", 1)` while a blank line is left, and a
  trailing `data: ` event taken at once when `json.loads` accepts it), then per message
  `json.loads` again, `time.perf_counter()` after it, the ITL append and the text concatenation.
The prompt is 32 token ids (the servebench run sends a 32-token text prompt; only the simulator
tokenises it, and the streamed events are the same).

One difference from a fresh `python3` process is deliberate. asyncio reads each socket with
`sock.recv(256 KiB)`: a 256 KiB malloc that glibc serves with mmap (then mremap, munmap and page
faults, on every read) while its mmap threshold is still at its 128 KiB start. glibc raises that
threshold to the size of any mmap'ed block that is freed (mallopt(3), M_MMAP_THRESHOLD), which
vLLM's process has done long before it sends: it loads the model's tokenizer, and tokenizer.json
(megabytes) is read whole into one block and freed. A bare peer never does, and paid 2.4 times
the CPU for it (2,000 streams at load 5: 19.5 s against 8.0 s, 12.3 s against 1.6 s of it in
the kernel). So the peer frees one 8 MiB block first; `--fresh-malloc` skips that to compare.
"""
import asyncio
import codecs
import gc
import json
import resource
import sys
import time

import aiohttp
import aiohttp.http_parser

TIMEOUT = aiohttp.ClientTimeout(total=6 * 60 * 60)


class StreamedResponseHandler:
    """Joins chunks and hands back each complete SSE message, as vLLM's handler of that name."""

    def __init__(self):
        self.buffer = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def add_chunk(self, chunk_bytes):
        self.buffer += self.decoder.decode(chunk_bytes)
        complete = []
        while "\n\n" in self.buffer:
            head, self.buffer = self.buffer.split("\n\n", 1)
            head = head.strip()
            if head:
                complete.append(head)
        # A trailing event without its blank line (the chunk was stripped) counts once it parses.
        if self.buffer.startswith("data: "):
            body = self.buffer.removeprefix("data: ").strip()
            if body == "[DONE]":
                complete.append(self.buffer.strip())
                self.buffer = ""
            elif body:
                try:
                    json.loads(body)
                except json.JSONDecodeError:
                    pass
                else:
                    complete.append(self.buffer.strip())
                    self.buffer = ""
        return complete


class Output:
    __slots__ = ("id", "success", "error", "start", "ttft", "itl", "latency", "text", "output_tokens", "chunks")

    def __init__(self, rid):
        self.id = rid
        self.success = False
        self.error = ""
        self.start = 0.0
        self.ttft = 0.0
        self.itl = []
        self.latency = 0.0
        self.text = ""
        self.output_tokens = 0
        self.chunks = 0


async def request_completion(session, url, prompt, output_tokens, rid):
    """One streamed completion, read as `async_request_openai_completions` reads it."""
    payload = {
        "model": "m",
        "prompt": prompt,
        "repetition_penalty": 1.0,
        "max_tokens": output_tokens,
        "logprobs": None,
        "stream": True,
        "stream_options": {"include_usage": True},
        "ignore_eos": True,
    }
    headers = {"x-request-id": rid}
    out = Output(rid)
    text = ""
    st = time.perf_counter()
    out.start = st
    last = st
    try:
        async with session.post(url=url, json=payload, headers=headers) as response:
            if response.status != 200:
                out.error = response.reason or ""
                return out
            first = False
            handler = StreamedResponseHandler()
            async for chunk_bytes in response.content.iter_any():
                out.chunks += 1
                chunk_bytes = chunk_bytes.strip()
                if not chunk_bytes:
                    continue
                for message in handler.add_chunk(chunk_bytes):
                    if message.startswith(":"):
                        continue
                    chunk = message.removeprefix("data: ")
                    if chunk == "[DONE]":
                        continue
                    data = json.loads(chunk)
                    if choices := data.get("choices"):
                        piece = choices[0].get("text")
                        timestamp = time.perf_counter()
                        if not first:
                            first = True
                            out.ttft = timestamp - st
                        else:
                            out.itl.append(timestamp - last)
                        last = timestamp
                        text += piece or ""
                    elif usage := data.get("usage"):
                        out.output_tokens = usage.get("completion_tokens")
            out.success = first
            if not first:
                out.error = "Never received a valid chunk to calculate TTFT."
            out.text = text
            out.latency = last - st
    except Exception as error:  # a failed request is data, as in vLLM
        out.error = repr(error)
    return out


def cpu_s():
    """User + system CPU of this whole process (every thread), seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def epoch_offset_s():
    """time.time() − time.perf_counter(), the tightest of a few reads: perf_counter to epoch."""
    best = None
    for _ in range(20):
        a = time.perf_counter()
        wall = time.time()
        b = time.perf_counter()
        if best is None or b - a < best[0]:
            best = (b - a, wall - (a + b) / 2)
    return best[1]


async def main(url, concurrency, requests, output_tokens):
    api_url = f"{url}/v1/completions"
    connector = aiohttp.TCPConnector(
        limit=concurrency,
        limit_per_host=concurrency,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
    )
    session = aiohttp.ClientSession(connector=connector, trust_env=True, timeout=TIMEOUT)
    prompts = [[1000 + ((i * 32 + j) % 50_000) for j in range(32)] for i in range(requests)]
    for generation in range(3):
        gc.collect(generation)
    gc.freeze()
    test = await request_completion(session, api_url, prompts[0], output_tokens, "py-test")
    if not test.success:
        raise SystemExit(f"initial test run failed: {test.error}")
    print("Starting main benchmark run...", file=sys.stderr)
    cpu0 = cpu_s()
    wall0 = time.perf_counter()
    semaphore = asyncio.Semaphore(concurrency)

    async def limited(i):
        async with semaphore:
            return await request_completion(session, api_url, prompts[i], output_tokens, f"py-{i}")

    tasks = [asyncio.create_task(limited(i)) for i in range(requests)]
    outputs = await asyncio.gather(*tasks)
    run_cpu_s = cpu_s() - cpu0
    run_wall_s = time.perf_counter() - wall0
    await session.close()
    offset = epoch_offset_s()
    return {
        "run_cpu_s": run_cpu_s,
        "run_wall_s": run_wall_s,
        "http_parser": "c" if aiohttp.http_parser.HttpResponseParser.__module__ == "aiohttp._http_parser" else "python",
        "aiohttp": aiohttp.__version__,
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "records": [
            {
                "id": o.id,
                "success": o.success,
                "error": o.error,
                "start_epoch_ms": (o.start + offset) * 1000,
                "ttft_s": o.ttft,
                "itl": o.itl,
                "chunks": o.chunks,
            }
            for o in outputs
        ],
    }


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--fresh-malloc" not in sys.argv:
        # See the docstring: what vLLM's imports and tokenizer load leave behind in glibc's malloc.
        block = bytearray(8 << 20)
        del block
    result = asyncio.run(main(args[0], int(args[1]), int(args[2]), int(args[3])))
    result["process_cpu_s"] = cpu_s()
    print(json.dumps(result))
