"""The referee benchmark's bot: answers at once and reports its own think time (ns) in the
comment, so the benchmark can subtract exactly the time spent inside ``act``."""

import time

from arena.sdk import serve_bot

calls = 0


def act(observation: dict, legal_options: list):
    global calls
    t0 = time.perf_counter_ns()
    calls += 1
    choice = legal_options[(calls * 7) % len(legal_options)].id
    return choice, f"t={time.perf_counter_ns() - t0}"


if __name__ == "__main__":
    serve_bot(act)
