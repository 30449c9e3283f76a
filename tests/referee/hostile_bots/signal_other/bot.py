"""Hostile: looks for processes other than its own to signal (the other seat's bot, the
referee) by sending signal 0 to every pid up to 65536 and SIGKILL to any it finds that is not
a process or thread in its own /proc, then keeps playing. Its comment says what it saw: ``own=N foreign=N
killed=N``."""

import os

from arena.sdk import serve_bot


def hunt() -> str:
    own = set()  # every process and thread of its own (kill() takes a thread's id as well)
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                own.update(int(t) for t in os.listdir(f"/proc/{p}/task"))
            except OSError:
                pass
    found = set()
    for pid in range(1, 1 << 16):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass  # it exists, but may not be signalled
        found.add(pid)
    foreign = sorted(found - own)
    killed = 0
    for pid in foreign:
        try:
            os.kill(pid, 9)
            killed += 1
        except OSError:
            pass
    return f"own={len(found & own)} foreign={len(foreign)} killed={killed}"


report = ""


def act(observation: dict, legal_options: list):
    global report
    if not report:
        report = hunt()
        return legal_options[0].id, report
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
