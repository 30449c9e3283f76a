"""Honest but CPU-hungry: its StartMatch burns ``spin_ms`` of CPU time (per thread, on
``threads`` threads), and each decision ``act_spin_ms`` before it plays the first option (all
read from files next to bot.py; defaults 300 ms, one thread, 0 ms). On a quiet host it is ready
in about ``spin_ms``; on a host that keeps it waiting for a CPU it needs longer in wall time,
but no more of its own."""

import threading
import time
from pathlib import Path

from arena.sdk import serve_bot

HERE = Path(__file__).parent


def setting(name: str, default: int) -> int:
    path = HERE / name
    return int(path.read_text()) if path.exists() else default


def spin(ms: int) -> None:
    end = time.thread_time() + ms / 1000.0
    while time.thread_time() < end:
        pass


def start(match: dict) -> None:
    if setting("threads", 1) == 1:
        spin(setting("spin_ms", 300))  # in the thread that serves StartMatch, as most bots do
        return
    workers = [threading.Thread(target=spin, args=(setting("spin_ms", 300),))
               for _ in range(setting("threads", 1))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def act(observation: dict, legal_options: list) -> str:
    spin(setting("act_spin_ms", 0))
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act, start=start)
