"""Printing text that came from bots (or from a remote server) to an operator's terminal.

A bot's stderr tail, its comments, its name and the labels a remote source sends are untrusted:
an escape sequence in them can clear the screen, move the cursor to fake earlier lines, set
the window title or hide text. :func:`safe` is the one filter every such text goes through
before a command prints it: control characters (C0 but newline and tab, DEL, C1) and the
invisible Unicode formatting characters (bidirectional overrides, zero-width marks) become
visible escapes such as ``\\x1b``, so the operator sees that something was there.
"""

from __future__ import annotations

import re
from typing import Any

import click

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: Any) -> str:
    """``text`` as a string with every control or invisible formatting character escaped
    (newlines and tabs are kept)."""
    return _UNSAFE.sub(_escape, str(text))


def echo(text: Any = "", **kwargs: Any) -> None:
    """``click.echo`` of untrusted text, through :func:`safe`."""
    click.echo(safe(text), **kwargs)


def secho(text: Any = "", **kwargs: Any) -> None:
    """``click.secho`` of untrusted text, through :func:`safe` (the styling is added after)."""
    click.secho(safe(text), **kwargs)
