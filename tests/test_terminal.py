"""Operator safety: bot-produced text printed to a terminal has its control characters escaped."""

from __future__ import annotations

import click
from click.testing import CliRunner

from arena.cli.play import register
from arena.cli.terminal import safe
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
    assert result.exit_code == 1, result.output  # a seat forfeited
    printed = result.output + result.stderr
    assert "forfeited" in printed and "last output" in printed
    assert "\\x1b[31mred" in printed and "\\u202eFAKE" in printed  # shown, not obeyed
    assert not any(c in printed for c in DANGEROUS)


def test_arena_watch_prints_a_hidden_choice_as_such_and_escapes_what_it_prints(capsys) -> None:  # noqa: ANN001
    from arena.cli.client import _Printer

    _echo_live = _Printer().live
    _echo_live({"type": "start", "match_id": "m", "game": "toy", "variant": "base",
                "seats": [{"name": "evil\x1b]0;owned\x07"}, {"name": "ok"}]})
    _echo_live({"type": "decision", "n": 3, "seat": 1, "option": None, "private_choice": True,
                "comment": "secret", "label": "Secret card", "events": ["seat 1 plays a card\x1b[2J"]})
    _echo_live({"type": "forfeit", "seat": 0, "reason": "bot_error", "message": "boom\x1b[31m"})
    out = capsys.readouterr().out
    # numbered from 1 as on the website; the seat's bot named
    assert "[   4] ok (seat 1): (a hidden choice)" in out and "None" not in out
    assert "Secret card" not in out and "secret" not in out
    assert "\\x1b]0;owned\\x07" in out and "\\x1b[2J" in out and "boom\\x1b[31m" in out
    assert not any(c in out for c in DANGEROUS)
