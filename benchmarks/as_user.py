"""Run a Python module of this project as an unprivileged user, from a root process: how the
benchmarks measure the referee's unprivileged mode (no per-bot uid, no cgroups) on a machine
where they run as root, as ``tests/referee/test_unprivileged_referee.py`` does for the tests.

The Python installation may live under a folder other users cannot enter (``/root/.pyenv``):
the module then runs in a private mount namespace where only the folders it needs are made
reachable (a tmpfs over the closed folder with those paths bound back), which changes nothing
for anyone else. Run by a user that is not root, the module simply runs as that user.
"""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys
from pathlib import Path

from referee import sandbox

PROJECT = Path(__file__).resolve().parents[1]
#: The user the benchmarks run as (made with ``useradd --system`` the first time).
USER = "arena-bench"


class AsUserError(RuntimeError):
    """The module could not be run as the unprivileged user (the message says why)."""


def bench_user() -> pwd.struct_passwd:
    """The unprivileged user, made if it does not exist yet (root only)."""
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", USER], capture_output=True, text=True)
    try:
        return pwd.getpwnam(USER)  # made now, or by a run beside this one
    except KeyError:
        raise AsUserError(f"cannot create the user {USER}: {made.stderr.strip()}") from None


def _reachability_script(needed: list[Path]) -> str:
    """Shell lines (run as root in a private mount namespace) that make ``needed`` reachable by
    any user: each topmost folder others may not enter is covered by a tmpfs into which only
    the needed paths are bound back."""
    lines = ["set -e", "stash=$(mktemp -d)"]
    covered: dict[Path, list[Path]] = {}
    for path in needed:
        for anc in [*reversed(path.parents), path]:
            if anc != Path("/") and not anc.stat().st_mode & stat.S_IXOTH:
                covered.setdefault(anc, []).append(path)
                break
    for i, (anc, paths) in enumerate(covered.items()):
        lines += [f"mkdir -p $stash/{i}", f"mount --bind '{anc}' $stash/{i}",
                  f"mount -t tmpfs -o mode=0755 tmpfs '{anc}'"]
        for p in paths:
            rel = p.relative_to(anc)
            lines += [f"mkdir -p '{p}'", f"mount --bind \"$stash/{i}/{rel}\" '{p}'"]
    return "\n".join(lines)


def run_module(module: str, args: list[str], timeout_s: float) -> str:
    """Run ``python -m module args`` as the unprivileged user (as this user when it is not
    root) and return its standard output. Raises :class:`AsUserError` when it fails."""
    cmd = [sys.executable, "-m", module, *args]
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PYTHONPATH": str(PROJECT), "LANG": "C.UTF-8"}
    if os.geteuid() == 0:
        user = bench_user()
        needed = sorted({*sandbox._python_roots(), Path(sys.prefix), PROJECT})
        wrapper = (_reachability_script(needed) + "\nexec setpriv "
                   f"--reuid={user.pw_uid} --regid={user.pw_gid} --clear-groups --inh-caps=-all "
                   '--bounding-set=-all -- "$@"')
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", wrapper, "sh", *cmd]
    try:
        done = subprocess.run(cmd, cwd="/", env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise AsUserError(f"{module} did not finish within {timeout_s:.0f} s as {USER}") from None
    if done.returncode != 0:
        raise AsUserError(f"{module} failed as an unprivileged user (exit {done.returncode}):\n"
                          f"{done.stderr[-3000:]}")
    return done.stdout
