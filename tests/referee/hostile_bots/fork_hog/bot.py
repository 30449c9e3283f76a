"""Hostile: stays under the per-process memory limit but forks five children that each fill
100 MiB, to multiply its memory. Reports in its comment how the children ended."""

import os
import signal
import time

from arena.sdk import serve_bot

done = False


def act(observation: dict, legal_options: list):
    global done
    if done:
        return legal_options[0].id
    done = True
    children = []
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            data = b"\x01" * (100 << 20)  # touched pages, not a lazy zero mapping
            time.sleep(0.5)
            os._exit(len(data) & 1)
        children.append(pid)
    killed = ok = 0
    for pid in children:
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            killed += 1
        elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            ok += 1
    return legal_options[0].id, f"killed={killed} ok={ok}"


if __name__ == "__main__":
    serve_bot(act)
