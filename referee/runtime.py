"""What a hosted Python bot may import beyond the standard library and the SDK, and how it says so.

Why this exists: a hosted ``bot.py`` runs on the referee's own Python inside the sandbox
(:mod:`referee.sandbox` binds that interpreter and its site-packages read-only), so the packages
it can import are exactly the ones installed beside the referee. That set differs from server
to server, and a bot that imports a missing package would only fail at its first match, as a
crash. So the runtime *offers* a short, documented list (:data:`OFFERED`: the SDK's own
dependencies and the numeric stack of the ``learned`` extra), and a bot *declares* what it needs
in a ``requirements.txt`` beside ``bot.py`` — pip's format, restricted to names and version
specifiers. :func:`check_requirements` refuses, with a message naming what is missing and how
to get it, a bot that declares a package the runtime does not offer or that is not installed
in a matching version; the referee calls it before launching a bot and the intake before
registering one. A bot without ``requirements.txt`` declares nothing (the standard library and
the SDK). docs/bot-authors-guide.md, "Packages a hosted bot may use", is the user-facing side.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

#: The file of a bot's folder that declares the packages it imports.
DECLARATION = "requirements.txt"

#: Packages the hosted runtime offers, by normalised distribution name, with what installs them
#: on the server. The SDK's own (grpcio, protobuf) are always there; numpy and onnxruntime come
#: with the ``learned`` extra (``pip install 'tabletop-arena[learned]'``; the Docker image has
#: them). Anything else installed beside the referee is an accident of that server, not a promise.
OFFERED: dict[str, str] = {
    "grpcio": "the arena's core install",
    "protobuf": "the arena's core install",
    "numpy": "the 'learned' extra (pip install 'tabletop-arena[learned]')",
    "onnxruntime": "the 'learned' extra (pip install 'tabletop-arena[learned]')",
}

_LINE = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<spec>(?:[<>=!~]=?\s*[\w.*+-]+\s*,?\s*)*)$")
_CLAUSE = re.compile(r"(?P<op>~=|==|!=|<=|>=|<|>)\s*(?P<version>[\w.*+-]+)")
#: Declarations longer than this are not a list of imports but something else.
MAX_LINES = 50


class RuntimeMissing(ValueError):
    """A bot declares a package the hosted runtime does not offer, or offers in another version."""


def normalise(name: str) -> str:
    """A distribution name as PyPI compares them (PEP 503): case and ``-_.`` runs ignored."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _release(version: str) -> tuple[int, ...]:
    """The leading numeric release of a version (``2.4.6rc1`` -> (2, 4, 6)), for comparisons."""
    parts = []
    for piece in version.split("."):
        m = re.match(r"\d+", piece)
        if m is None:
            break
        parts.append(int(m.group()))
        if m.end() != len(piece):
            break
    return tuple(parts)


def _satisfies(installed: str, op: str, wanted: str) -> bool:
    if op == "==" and wanted.endswith(".*"):
        prefix = _release(wanted[:-2])
        return _release(installed)[: len(prefix)] == prefix
    have, want = _release(installed), _release(wanted)
    width = max(len(have), len(want))
    have, want = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
    if op == "~=":  # compatible release: >= wanted and the same release minus its last part
        head = _release(wanted)[:-1]
        return have >= want and _release(installed)[: len(head)] == head
    return {
        "==": have == want, "!=": have != want, "<=": have <= want,
        ">=": have >= want, "<": have < want, ">": have > want,
    }[op]


def parse(text: str, where: str = DECLARATION) -> list[tuple[str, list[tuple[str, str]]]]:
    """The (normalised name, [(operator, version)]) pairs of a declaration; :class:`RuntimeMissing`
    for a line that is not ``name`` or ``name<op>version[, <op>version]``."""
    out = []
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise RuntimeMissing(f"{where}: {len(lines)} lines; a bot declares at most {MAX_LINES} packages")
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise RuntimeMissing(
                f"{where}, line {number}: {line[:60]!r} is not a package name with optional version "
                "specifiers (e.g. 'numpy>=1.24'); options, URLs and extras are not supported"
            )
        clauses = [(c.group("op"), c.group("version")) for c in _CLAUSE.finditer(m.group("spec"))]
        out.append((normalise(m.group("name")), clauses))
    return out


def installed(name: str) -> str | None:
    """The version of distribution ``name`` in this interpreter (the one bots run on), or None."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def offered() -> dict[str, str | None]:
    """Each offered package and its installed version here (None: not installed on this server)."""
    return {name: installed(name) for name in OFFERED}


def check_requirements(bot_dir: Path) -> list[tuple[str, str]]:
    """The (package, installed version) pairs a bot folder declares, all available; raises
    :class:`RuntimeMissing` naming every declared package the runtime lacks and how to fix it."""
    path = Path(bot_dir) / DECLARATION
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeMissing(f"{path}: cannot be read ({exc})") from None
    found, problems = [], []
    for name, clauses in parse(text, str(path)):
        wanted = name + ",".join(f"{op}{v}" for op, v in clauses)
        if name not in OFFERED:
            problems.append(
                f"{wanted}: not offered to hosted bots (offered: {', '.join(OFFERED)}); "
                "vendor pure-Python code into the bot's folder, or play it as a dial-in bot"
            )
            continue
        version = installed(name)
        if version is None:
            problems.append(f"{wanted}: not installed on this server (it comes with {OFFERED[name]})")
        elif not all(_satisfies(version, op, v) for op, v in clauses):
            problems.append(f"{wanted}: this server has {name} {version}")
        else:
            found.append((name, version))
    if problems:
        raise RuntimeMissing(
            f"{path}: the hosted bot runtime lacks what this bot declares: " + "; ".join(problems)
        )
    return found
