"""Hostile clients against a real server: huge bodies, and chats held by a silent LLM.

Starts the API (SQLite, demo data) under uvicorn in a child process on 127.0.0.1, then measures:
  * the server's peak RSS while 8 clients each push a 100 MiB body without a token (then with one);
  * /healthz, /api/v1/search and a write (POST /api/v1/projects) latency while 50 chats wait on a
    black-hole LLM (a loopback socket that accepts and never answers).
Writes docs/bench/bench_hostile.json and appends rows to docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from benchmarks_md import append_rows, save_result  # noqa: E402

TOKEN = "bench-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MIB = 1024 * 1024


def serve(db: str, port: int, llm_url: str) -> None:
    """The child process: migrate, seed, index, serve."""
    import uvicorn

    from app import demo_data
    from app.api.main import create_app
    from app.config import Settings
    from app.engines import open_engine
    from app.services.demo import seed
    from app.worker import Worker

    settings = Settings(_env_file=None, database_url=f"sqlite:///{db}", api_tokens=TOKEN, run_worker=False,
                        backfill_on_startup=False, llm_url=llm_url, llm_model="x", llm_timeout_s=600,
                        chat_max_concurrency=64)
    engine = open_engine(settings)
    engine.migrate()
    seed(engine, demo_data.build(tasks=30))
    Worker(engine, settings).run_once()
    uvicorn.run(create_app(settings, engine=engine), host="127.0.0.1", port=port, log_level="warning")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class PeakRSS:
    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.stop = pid, rss_mib(pid), threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mib(self.pid))
            time.sleep(0.02)

    def __enter__(self) -> PeakRSS:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def push_body(port: int, size: int, token: str | None) -> str:
    """Send headers announcing `size` bytes, then the body until the server answers or hangs up."""
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (f"POST /api/v1/documents HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\n{auth}\r\n").encode()
    chunk = b"x" * MIB
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(head)
        try:
            for _ in range(size // MIB):
                conn.sendall(chunk)
        except OSError:
            pass  # the server answered and closed: the rest of the body is never read
        reply = conn.recv(200)
    return reply.split(b"\r\n", 1)[0].decode()


def bench_bodies(port: int, pid: int, token: str | None, clients: int, size: int) -> dict:
    before = rss_mib(pid)
    started = time.perf_counter()
    with PeakRSS(pid) as peak, ThreadPoolExecutor(clients) as pool:
        statuses = list(pool.map(lambda _: push_body(port, size, token), range(clients)))
    return {"token": token is not None, "clients": clients, "body_mib": size // MIB, "statuses": sorted(set(statuses)),
            "rss_before_mib": round(before, 1), "rss_peak_mib": round(peak.peak, 1),
            "seconds": round(time.perf_counter() - started, 2)}


class BlackHole:
    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0), backlog=512)
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.conns.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        for c in self.conns:
            c.close()
        self.sock.close()


def latencies(call, n: int) -> dict:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        response = call()
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code < 300, response.text
    return {"p50_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}


def bench_held_chats(base: str, llm: BlackHole, held: int, samples: int) -> dict:
    chat = {"message": "login bug", "employee_id": 1}
    with ThreadPoolExecutor(held) as pool:
        futures = [pool.submit(httpx.post, f"{base}/api/v1/chat", json=chat, headers=AUTH, timeout=600)
                   for _ in range(held)]
        deadline = time.monotonic() + 60
        while len(llm.conns) < held and time.monotonic() < deadline:
            time.sleep(0.05)
        waiting = len(llm.conns)
        search = {"question": "login bug", "employee_id": 1}
        result = {
            "held_chats": waiting,
            "healthz": latencies(lambda: httpx.get(f"{base}/healthz", timeout=60), samples),
            "search": latencies(lambda: httpx.post(f"{base}/api/v1/search", json=search, headers=AUTH, timeout=60),
                                samples),
            "write": latencies(lambda: httpx.post(f"{base}/api/v1/projects", json={"name": "bench"}, headers=AUTH,
                                                  timeout=60), samples),
        }
        llm.close()  # the chats fall back to extractive answers
        result["chats_answered"] = sum(f.result().status_code == 200 for f in futures)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", nargs=3, metavar=("DB", "PORT", "LLM_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--out", default=str(ROOT / "docs" / "bench" / "bench_hostile.json"))
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), args.serve[2])
        return

    llm = BlackHole()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        llm_url = f"http://127.0.0.1:{llm.sock.getsockname()[1]}/v1"
        child = subprocess.Popen([sys.executable, __file__, "--serve", f"{tmp}/rag.db", str(port), llm_url],
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or child.poll() is not None:
                    raise RuntimeError("the server did not start")
                time.sleep(0.2)
            result = {
                "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "machine": f"{platform.machine()} {platform.python_version()}",
                "bodies_without_token": bench_bodies(port, child.pid, None, 8, 100 * MIB),
                "bodies_with_token": bench_bodies(port, child.pid, TOKEN, 8, 100 * MIB),
                "held_chats": bench_held_chats(base, llm, 50, 20),
            }
        finally:
            child.terminate()
            child.wait(timeout=30)
    out = Path(args.out)
    save_result(out, result)
    append_markdown(result)
    print(json.dumps(result, indent=2))


def append_markdown(r: dict) -> None:
    date = r["date"][:10]
    rows = []
    for key, label in (("bodies_without_token", "no token"), ("bodies_with_token", "valid token")):
        b = r[key]
        rows.append(f"| {date} | 8 × 100 MiB bodies, {label} | 8 clients | server RSS before / peak MiB | "
                    f"{b['rss_before_mib']} / {b['rss_peak_mib']} | answers {', '.join(b['statuses'])} | "
                    f"+{round(b['rss_peak_mib'] - b['rss_before_mib'], 1)} MiB |")
    h = r["held_chats"]
    for name in ("healthz", "search", "write"):
        rows.append(f"| {date} | {name} while chats wait on a silent LLM | {h['held_chats']} chats | p50 / max ms | "
                    f"{h[name]['p50_ms']} / {h[name]['max_ms']} | target < 1000 ms | - |")
    append_rows(rows)


if __name__ == "__main__":
    main()
