"""Hostile (issue 35): tries to turn a lost clock into a void match, which is replayed.

At its first decision, after the referee's walks of its tasks, it forks busy helpers and
keeps them spinning, so they pile up run-queue waits on a busy host (and make it busier).
Decisions go on normally (``think.txt`` seconds each) until the helpers are ``after.txt``
seconds old; then it stops them (SIGSTOP) and sleeps past its clock (``mode.txt`` "sleep"),
or stops itself too ("stop"). A referee that counted the helpers' earlier waits as inside
that decision would forgive the sleep and void the match instead of forfeiting it."""

import os
import signal
import time
from pathlib import Path

from arena.sdk import serve_bot

HERE = Path(__file__).parent
HELPERS = 4


def _setting(name: str, default: str) -> str:
    try:
        return (HERE / name).read_text().strip()
    except OSError:
        return default


THINK_S = float(_setting("think.txt", "0.5"))
AFTER_S = float(_setting("after.txt", "2.0"))
MODE = _setting("mode.txt", "sleep")
helpers: list[int] = []
born = 0.0


def act(observation: dict, legal_options: list) -> str:
    global born
    if not helpers:
        born = time.monotonic()
        for _ in range(HELPERS):
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            helpers.append(pid)
        return legal_options[0].id
    if time.monotonic() - born < AFTER_S:
        time.sleep(THINK_S)
        return legal_options[0].id
    for pid in helpers:
        os.kill(pid, signal.SIGSTOP)
    if MODE == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    time.sleep(60)
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
