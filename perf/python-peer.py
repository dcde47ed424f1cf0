"""The Python peer client of `npm run perf -- python` (perf/python-peer.ts): streamed completions
sent with aiohttp the way vLLM's `async_request_openai_completions` (vllm/benchmarks/lib/
endpoint_request_func.py) reads them: `iter_any()` chunks through its `StreamedResponseHandler`
(events split at blank lines, a complete JSON event taken at once), `time.perf_counter()` per event. Run with Debian's python3-aiohttp:
`/usr/bin/python3 perf/python-peer.py URL CONCURRENCY REQUESTS OUTPUT_TOKENS` → one JSON line.
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


class StreamedResponseHandler:
    """vLLM's: joins chunks, splits events at blank lines, emits a complete JSON event at once."""

    def __init__(self):
        self.buffer = ""

    def add_chunk(self, chunk_bytes):
        self.buffer += chunk_bytes.decode("utf-8")
        messages = []
        while "\n\n" in self.buffer:
            message, self.buffer = self.buffer.split("\n\n", 1)
            message = message.strip()
            if message:
                messages.append(message)
        if self.buffer.startswith("data: "):
            content = self.buffer.removeprefix("data: ").strip()
            if content == "[DONE]":
                messages.append(self.buffer.strip())
                self.buffer = ""
            elif content:
                try:
                    json.loads(content)
                    messages.append(self.buffer.strip())
                    self.buffer = ""
                except json.JSONDecodeError:
                    pass
        return messages


async def one(session, url, i, output_tokens, out):
    payload = {
        "model": "m",
        "prompt": [1000 + ((i * 32 + j) % 50_000) for j in range(32)],
        "max_tokens": output_tokens,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    rid = f"py-{i}"
    st = time.perf_counter()
    ttft = 0.0
    last = st
    itl = []
    text = ""
    handler = StreamedResponseHandler()
    async with session.post(url, json=payload, headers={"x-request-id": rid}) as response:
        async for chunk_bytes in response.content.iter_any():
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
                    timestamp = time.perf_counter()
                    if ttft == 0.0:
                        ttft = timestamp - st
                    else:
                        itl.append(timestamp - last)
                    last = timestamp
                    text += choices[0].get("text") or ""
    out.append({"id": rid, "itl": itl})


async def main():
    url, concurrency, requests, output_tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    connector = aiohttp.TCPConnector(limit=concurrency, keepalive_timeout=60)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    out = []
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    wall0 = time.perf_counter()
    semaphore = asyncio.Semaphore(concurrency)

    async def limited(session, i):
        async with semaphore:
            await one(session, f"{url}/v1/completions", i, output_tokens, out)

    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(limited(session, i) for i in range(requests)))
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "cpu_s": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime),
        "wall_s": time.perf_counter() - wall0,
        "records": out,
    }))


asyncio.run(main())
