"""Generated gRPC code, built from ``protos/`` by grpcio-tools when the package is installed.

The ``*_pb2*.py`` files here are build products (git-ignored) and must never be edited by hand:
change the ``.proto`` files and reinstall (or run ``python -m arena.build_protos``).

Both files' code is here, in the lowest Python layer: the referee speaks ``bot.proto`` to bots
and ``arena.proto``'s ``DialinRelay`` to the dial-in relay; the platform imports it from here.
"""

from __future__ import annotations

import re
from pathlib import Path


def _check_protobuf_runtime() -> None:
    """Refuse, in one clear line, generated code newer than the installed protobuf.

    Why: pip builds the package with the newest grpcio-tools (an isolated build), whose code
    needs a protobuf at least as new; with an older protobuf installed (the declared minimum is
    older, README "Tested versions") the import failed deep inside ``google.protobuf`` with
    ``cannot import name 'runtime_version'`` or a ``VersionError``."""
    generated = Path(__file__).with_name("bot_pb2.py")
    try:
        head = generated.read_text(encoding="utf-8")[:400]
    except OSError:
        return  # not built yet: importing bot_pb2 says so itself
    made = re.search(r"# Protobuf Python Version: (\d+)\.(\d+)\.(\d+)", head)
    if made is None:
        return
    from google.protobuf import __version__ as runtime

    have = re.match(r"(\d+)\.(\d+)\.(\d+)", runtime)
    if have and tuple(map(int, have.groups())) < tuple(map(int, made.groups())):
        raise ImportError(
            f"referee/_proto was generated for protobuf {'.'.join(made.groups())} but protobuf "
            f"{runtime} is installed: run `python -m arena.build_protos` (or upgrade protobuf)"
        )


_check_protobuf_runtime()
