"""Operator safety: bot-produced text printed to a terminal has its control characters escaped."""

from __future__ import annotations

import click
from click.testing import CliRunner

from arena.commands.play import register
from arena.terminal import safe
from tests.referee.helpers import HOSTILE, RANDOM_BOT, needs_bwrap

DANGEROUS = ("\x1b", "\x07", "\r", "\u202e", "\x9b", "\x00")


def test_safe_escapes_control_and_invisible_characters_but_keeps_lines() -> None:
    text = "a\x1b[2Jb\x07c\rd\u202ee\x9bf\x00g\u200bh\tline\nnext é 한글"
    out = safe(text)
    assert not any(c in out for c in DANGEROUS + ("\u200b",))
    assert out == "a\\x1b[2Jb\\x07c\\x0dd\\u202ee\\x9bf\\x00g\\u200bh\tline\nnext é 한글"


@needs_bwrap
def test_play_prints_a_crashed_bots_stderr_with_its_escapes_made_visible() -> None:
    @click.group()
    def cli() -> None:
        """test group"""

    register(cli)
    result = CliRunner().invoke(
        cli, ["play", "toy", "--bot", str(HOSTILE / "terminal_escapes"), "--bot", str(RANDOM_BOT),
              "--decision-ms", "1500", "--bank-ms", "3000"],
    )
    assert result.exit_code == 0, result.output
    printed = result.output + result.stderr
    assert "forfeited" in printed and "last output" in printed
    assert "\\x1b[31mred" in printed and "\\u202eFAKE" in printed  # shown, not obeyed
    assert not any(c in printed for c in DANGEROUS)
