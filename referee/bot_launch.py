"""The first code a sandboxed bot's interpreter runs: it shuts the socket folder, then runs bot.py
(or, for a ``bot.json`` bot, the manifest's program: ``--exec PROGRAM ARGS...``).

Why: the bot must be able to create its socket in ``/arena/sock`` (gRPC binds it there), and a
folder one may bind a socket in is, to the permission bits, a folder one may create anything in.
Landlock draws the finer line: from here on, this process and every process it starts may make
only sockets in ``/arena/sock`` (no file, folder, link or device node), and may make and remove
entries only in ``/tmp`` and ``/dev/shm``; nothing else anywhere. The restriction cannot be lifted
by the bot: it runs before any of the bot's code, in the same interpreter (``runpy``, no second
Python start), and Landlock rules only ever narrow. A manifest's program (``node`` ...) replaces
this process with ``os.execv``: the restriction and ``no_new_privs`` survive the exec, and the
pid stays the one the referee watches.

Where the kernel has no Landlock (before Linux 5.13, or disabled), the bot still runs: its socket
folder is then a 1 MiB tmpfs of its own, as every writable place of the sandbox is capped.
"""

from __future__ import annotations

import ctypes
import os
import runpy
import struct
import sys

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on x86_64 and aarch64
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
#: The flag a manifest bot's command line carries (the same as referee.manifest.EXEC_FLAG).
EXEC_FLAG = "--exec"

REMOVE_DIR, REMOVE_FILE = 1 << 4, 1 << 5
MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (1 << n for n in range(6, 13))
REFER = 1 << 13  # Landlock ABI 2: moving or linking a file into another folder
MAKE_ANY = MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM

#: What may be created (and removed) where; everything else is refused.
RULES: dict[str, int] = {
    "/tmp": MAKE_ANY | REMOVE_DIR | REMOVE_FILE,
    "/dev/shm": MAKE_ANY | REMOVE_DIR | REMOVE_FILE,
    "/arena/sock": MAKE_SOCK,
}


def restrict() -> int:
    """Apply the rules to this process and its future children; returns the Landlock ABI
    version used, or 0 when the kernel has none."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    handled = MAKE_ANY | REMOVE_DIR | REMOVE_FILE | (REFER if abi >= 2 else 0)
    attr = ctypes.create_string_buffer(struct.pack("=Q", handled))
    ruleset = libc.syscall(ctypes.c_long(_CREATE_RULESET), attr, ctypes.c_size_t(8), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        for path, allowed in RULES.items():
            allowed |= REFER if abi >= 2 and allowed & MAKE_REG else 0
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd))
                if libc.syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset),
                                ctypes.c_int(_RULE_PATH_BENEATH), rule, ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def main() -> None:
    """``python -m referee.bot_launch /arena/bot/bot.py ARGS...``: restrict, then run the bot as
    ``python bot.py ARGS...`` would. ``python -m referee.bot_launch --exec PROGRAM ARGS...``:
    restrict, then become ``PROGRAM ARGS...`` (a bot.json manifest's command)."""
    restrict()
    if len(sys.argv) > 2 and sys.argv[1] == EXEC_FLAG:
        program = sys.argv[2]
        sys.stdout.flush()
        os.execv(program, sys.argv[2:])
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
