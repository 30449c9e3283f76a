"""Hostile: answers every decision at once, but from StartMatch on keeps six busy processes and
two busy threads running all the time, to take the CPU from the seat that is thinking.

The processes fight being stopped: four spin, one of them through a grandchild; one forks a
short-lived spinning child again and again (a fork racing the referee's walk of SIGSTOPs); and
each sends SIGCONT to all its siblings now and then, undoing a stop that has not reached the
others yet. The comment of each answer says how many busy processes are alive."""

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
            spin(list(busy))
        busy.append(pid)
    for _ in range(2):
        threading.Thread(target=spin, args=(list(busy),), daemon=True).start()


def act(observation: dict, legal_options: list) -> tuple[str, str]:
    alive = sum(1 for pid in busy if os.waitpid(pid, os.WNOHANG) == (0, 0))
    return legal_options[0].id, f"busy={alive}"


if __name__ == "__main__":
    serve_bot(act, start=start)
