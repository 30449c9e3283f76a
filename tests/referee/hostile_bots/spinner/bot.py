"""Hostile: answers every decision at once, but from StartMatch on keeps six busy processes (and
more busy threads) running all the time, to take the CPU from the seat that is thinking.

The processes fight being stopped: four spin, one of them also through a grandchild and one
with two more spinning threads; one forks a short-lived spinning child again and again (a fork
racing the referee's walk of SIGSTOPs); and each sends SIGCONT to its siblings now and then,
undoing a stop that has not reached the others yet. The bot's own process does not spin (its
answers stay quick: what it costs is the others' CPU, not its own). The comment of each answer
says how many busy processes are alive."""

import os
import signal
import threading
import time

from arena.sdk import serve_bot

SPINNERS = 6
busy: list[int] = []


def spin(siblings: list[int]) -> None:
    n = 0
    while True:
        n += 1
        if n % 200000 == 0:
            for pid in siblings:
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass


def forker() -> None:
    """Forks a child that spins for 20 ms and exits, forever."""
    while True:
        pid = os.fork()
        if pid == 0:
            end = time.perf_counter() + 0.02
            while time.perf_counter() < end:
                pass
            os._exit(0)
        os.waitpid(pid, 0)


def start(info: dict) -> None:
    if busy:
        return
    for i in range(SPINNERS):
        pid = os.fork()
        if pid == 0:
            if i == 0:
                forker()
            if i == 1 and os.fork() == 0:  # a grandchild spins too
                spin(list(busy))
            if i == 2:  # and threads
                for _ in range(2):
                    threading.Thread(target=spin, args=(list(busy),), daemon=True).start()
            spin(list(busy))
        busy.append(pid)


def act(observation: dict, legal_options: list) -> tuple[str, str]:
    alive = sum(1 for pid in busy if os.waitpid(pid, os.WNOHANG) == (0, 0))
    return legal_options[0].id, f"busy={alive}"


if __name__ == "__main__":
    serve_bot(act, start=start)
