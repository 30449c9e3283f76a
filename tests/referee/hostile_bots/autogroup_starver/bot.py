"""Hostile (issue 35): lowers its own priority where the referee did not look, then spins.

Its first decision sets its autogroup's nice value to 19 (``/proc/self/autogroup`` is writable
by its owner, and a thread's own nice value stays 0), and at its second it spins past its
clock: on a busy host every other session's tasks go first, so it sits in the run queue
nearly all the time. Those waits are its own choice; forgiven, they would void the match.
Its comment says whether the write took; refused (a read-only /proc), it plays on at once."""

import time

from arena.sdk import serve_bot

calls = 0
note_refused = False


def act(observation: dict, legal_options: list):
    global calls, note_refused
    calls += 1
    if calls == 1:
        try:
            with open("/proc/self/autogroup", "w") as fh:
                fh.write("19")
            with open("/proc/self/autogroup") as fh:
                note = fh.read().strip()
        except OSError as exc:
            note = f"autogroup: {exc.strerror}"
            note_refused = True
        return legal_options[0].id, note
    if note_refused:
        return legal_options[0].id  # nothing to gain: it plays on
    end = time.monotonic() + 60
    while time.monotonic() < end:
        pass
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
