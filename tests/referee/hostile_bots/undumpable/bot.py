"""Hostile: hides from the memory watch. ``prctl(PR_SET_DUMPABLE, 0)`` makes a process's
descriptors and mappings unreadable to anyone without a capability over it, which a referee
that is not root lacks: a bot could then hold pipes and mappings the watch never counts. It
does so in its first decision, waits two seconds and answers ``hidden``; killed on the way, it
forfeits."""

import ctypes
import time

from arena.sdk import serve_bot

PR_SET_DUMPABLE = 4
libc = ctypes.CDLL(None, use_errno=True)
done = False


def act(observation: dict, legal_options: list):
    global done
    if not done:
        done = True
        rc = libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        time.sleep(2.0)
        return legal_options[0].id, f"hidden rc={rc}"
    return legal_options[0].id


if __name__ == "__main__":
    serve_bot(act)
