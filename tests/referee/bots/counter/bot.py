"""A CPU-bound bot for fairness tests: each decision it counts in a tight loop for a fixed wall
time (``ms.txt``, default 150 ms) and reports how far it got and the CPU it used: its work per
decision is what an opponent that takes CPU from it would reduce."""

import time
from pathlib import Path

from arena.sdk import serve_bot

_SETTING = Path(__file__).parent / "ms.txt"
WINDOW_S = (int(_SETTING.read_text()) if _SETTING.exists() else 150) / 1000.0


def act(observation: dict, legal_options: list) -> tuple[str, str]:
    t0, c0 = time.perf_counter(), time.process_time()
    end = t0 + WINDOW_S
    n = 0
    while True:
        for _ in range(1000):
            n += 1
        if time.perf_counter() >= end:
            break
    cpu_ms = (time.process_time() - c0) * 1000.0
    return legal_options[0].id, f"count={n} cpu_ms={cpu_ms:.0f}"


if __name__ == "__main__":
    serve_bot(act)
