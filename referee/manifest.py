"""A hosted bot's entry point: ``bot.py`` (Python), or a ``bot.json`` manifest naming the command
for any other language, e.g. ``{"command": ["node", "bot.js"]}``.

The referee runs the command from the bot's folder with ``--address unix:PATH`` appended (and
``ARENA_BOT_ADDRESS`` set): the bot serves the ``tabletop.bot.v1.Bot`` service there. The
program must be a runtime installed on the referee's machine under ``/usr`` (the sandbox binds
``/usr`` read-only, nothing else of the host), named without a path, e.g. ``node``; the other
words are its arguments (files of the bot's folder, options). ``bot.py`` wins when both exist.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from referee.runtime import RuntimeMissing, check_requirements

PYTHON_ENTRY = "bot.py"
MANIFEST = "bot.json"
#: Where a manifest's program may live (the sandbox's PATH; all of it under /usr or links to it).
RUNTIME_PATH = "/usr/local/bin:/usr/bin:/bin"
#: What tells :mod:`referee.bot_launch` that a program (not a bot.py) follows.
EXEC_FLAG = "--exec"


class ManifestError(ValueError):
    """A ``bot.json`` that cannot be run; the message says what to fix."""


def has_entry(bot_dir: Path) -> bool:
    """Whether the folder is a hosted bot: ``bot.py`` or ``bot.json``."""
    return (bot_dir / PYTHON_ENTRY).is_file() or (bot_dir / MANIFEST).is_file()


def entry_files(bot_dir: Path) -> list[Path]:
    """The files that say how the bot starts (their bytes belong to its identity)."""
    return [p for p in (bot_dir / PYTHON_ENTRY, bot_dir / MANIFEST) if p.is_file()]


def read_command(bot_dir: Path) -> list[str] | None:
    """The manifest's command (program first), or None for a Python ``bot.py`` bot."""
    if (bot_dir / PYTHON_ENTRY).is_file():
        return None
    path = bot_dir / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{bot_dir} has neither {PYTHON_ENTRY} nor {MANIFEST}") from None
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: not valid JSON ({exc})") from None
    command = data.get("command") if isinstance(data, dict) else None
    if not (isinstance(command, list) and 0 < len(command) <= 32
            and all(isinstance(w, str) and w and "\0" not in w for w in command)):
        raise ManifestError(f'{path}: "command" must be a list of words, e.g. ["node", "bot.js"]')
    program = command[0]
    if "/" in program:
        raise ManifestError(f"{path}: name the program without a path (e.g. \"node\"); it is looked up under /usr")
    if shutil.which(program, path=RUNTIME_PATH) is None:
        raise ManifestError(f"{path}: the program {program!r} is not installed on this machine")
    return command


def launch_command(bot_dir: Path, inside_dir: str, address: str, *, launcher: bool = False) -> list[str]:
    """The command line that starts the bot: ``inside_dir`` is the folder as the bot sees it.

    With ``launcher`` (the sandbox) the bot starts through :mod:`referee.bot_launch`, which
    applies its Landlock restriction first and then runs ``bot.py`` in the same interpreter, or
    ``os.execv``'s the manifest's program (the restriction is inherited across exec).
    A ``bot.py`` bot's ``requirements.txt`` is checked against the hosted runtime first
    (:mod:`referee.runtime`): a missing package stops the launch with the reason, not a crash."""
    command = read_command(bot_dir)
    if command is None:
        try:
            check_requirements(bot_dir)
        except RuntimeMissing as exc:
            raise ManifestError(str(exc)) from None
    prefix = [sys.executable, "-s", "-B", "-m", "referee.bot_launch"] if launcher else []
    if command is None:
        if not launcher:
            prefix = [sys.executable, "-s", "-B"]
        return [*prefix, f"{inside_dir}/{PYTHON_ENTRY}", "--address", address]
    program = shutil.which(command[0], path=RUNTIME_PATH)
    if launcher:
        prefix.append(EXEC_FLAG)
    return [*prefix, str(program), *command[1:], "--address", address]
