"""Switches for the places where the project leans on another project's insides.

A *shortcut* is any use of a dependency's private API, or a patch of its internals, kept because
it was measured to matter (docs/shortcuts.md lists each: what, why, the measured gain, how to
turn it off). Every shortcut has a public path beside it, and this module decides which one runs:

- ``ARENA_SHORTCUTS`` turns them on or off: unset or ``on`` (all on), ``off`` (all off: the
  public path everywhere), or a comma list of names to turn off (``-kombu_qos,-cygrpc_server``)
  or, after ``off,``, to turn on (``off,+cygrpc_server``). Unknown names are refused with one
  line, so a typo does not silently leave a shortcut on.
- A *version gate*: each shortcut names the dependency releases it was tested with. On any other
  release it turns itself off and logs one line saying so (INFO, which the services log), because a private API may change in
  a patch release and the public path is always correct, only slower.

It lives at the bottom layer (``referee/``) since the referee's own direct bot stream is one
of the shortcuts; ``arena/`` registers the rest.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from importlib import metadata

log = logging.getLogger(__name__)

ENV = "ARENA_SHORTCUTS"


@dataclass(frozen=True)
class Shortcut:
    """One private-API use or patch: ``name`` is what ``ARENA_SHORTCUTS`` calls it, ``package``
    the distribution whose insides it uses, and ``tested`` the version prefixes it was tested
    with ("1.6", "1.7" match 1.6.x and 1.7.x; an exact "5.4.0" matches only that release)."""

    name: str
    package: str
    tested: tuple[str, ...]
    what: str


_REGISTRY: dict[str, Shortcut] = {}


def register(shortcut: Shortcut) -> Shortcut:
    _REGISTRY[shortcut.name] = shortcut
    return shortcut


def registered() -> dict[str, Shortcut]:
    return dict(_REGISTRY)


class ShortcutSettingError(ValueError):
    """``ARENA_SHORTCUTS`` names something that is not a shortcut, or is not well formed."""


def _requested(value: str | None, names: set[str], strict: bool = True) -> dict[str, bool]:
    """What ``ARENA_SHORTCUTS`` asks for each known name (True = on), before version gates.
    Not ``strict``: a name not (yet) registered is passed over, since shortcuts register when
    their module is imported and a process may never import some of them."""
    text = (value or "on").strip().lower()
    words = [w.strip() for w in text.split(",") if w.strip()]
    default = True
    if words and words[0] in ("on", "off"):
        default = words.pop(0) == "on"
    wanted = {name: default for name in names}
    for word in words:
        if word[:1] not in "+-" or len(word) < 2:
            raise ShortcutSettingError(f"{ENV}: {word!r} is not 'on', 'off', '+NAME' or '-NAME'")
        name = word[1:]
        if name not in names:
            if not strict:
                continue
            raise ShortcutSettingError(
                f"{ENV}: no shortcut is called {name!r}; known: {', '.join(sorted(names))}"
            )
        wanted[name] = word[0] == "+"
    return wanted


def installed_version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def version_tested(shortcut: Shortcut, version: str | None) -> bool:
    if version is None:
        return False
    return any(version == t or version.startswith(t + ".") for t in shortcut.tested)


@functools.cache
def _decide(name: str, setting: str | None) -> bool:
    shortcut = _REGISTRY[name]
    if not _requested(setting, set(_REGISTRY), strict=False)[name]:
        return False
    version = installed_version(shortcut.package)
    if not version_tested(shortcut, version):
        # INFO: the services (``arena serve``, workers) log it at start-up; a short command such
        # as ``arena ladder GAME`` stays one line, since the public path is correct, only slower.
        log.info(
            "shortcut %s is off: %s %s is not a release it was tested with (%s); using the public path",
            name,
            shortcut.package,
            version or "(not installed)",
            ", ".join(shortcut.tested),
        )
        return False
    return True


def enabled(name: str) -> bool:
    """Whether shortcut ``name`` runs in this process: asked for by ``ARENA_SHORTCUTS`` and
    tested with the installed release of its package. Decided once per setting and logged once."""
    if name not in _REGISTRY:
        raise KeyError(f"no shortcut is registered as {name!r}")
    return _decide(name, os.environ.get(ENV))


def check_setting(value: str | None = None) -> None:
    """Raise :class:`ShortcutSettingError` if ``ARENA_SHORTCUTS`` (or ``value``) is malformed;
    the CLI calls this at start-up so a typo is one line, not a late surprise."""
    _requested(os.environ.get(ENV) if value is None else value, set(_REGISTRY))


def reset_cache() -> None:
    """Forget the decisions (tests that change ``ARENA_SHORTCUTS`` call this)."""
    _decide.cache_clear()
