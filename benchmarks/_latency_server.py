"""A minimal OpenAI-compatible server for benchmarks: answers every request after a fixed delay.

asyncio, HTTP/1.1 keep-alive, loopback only; it echoes the prompt upper-cased. Prints its port.

    python benchmarks/_latency_server.py --delay 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import json


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
            if method == "GET" and path.endswith("/models"):
                payload = {"object": "list", "data": [{"id": "bench-model", "object": "model"}]}
            else:
                await asyncio.sleep(delay)
                request = json.loads(body or b"{}")
                if path.endswith("/chat/completions"):
                    text = request["messages"][-1]["content"].upper()
                    payload = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
                else:
                    payload = {"choices": [{"index": 0, "text": str(request.get("prompt", "")).upper()}]}
            data = json.dumps(payload).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(data)).encode() + b"\r\n\r\n" + data)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionResetError):
        pass
    finally:
        writer.close()


async def main(delay: float, port: int) -> None:
    server = await asyncio.start_server(lambda r, w: handle(r, w, delay), "127.0.0.1", port, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(main(args.delay, args.port))
