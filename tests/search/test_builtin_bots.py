"""Built-in bots by name: ``--bot random|greedy|ismcts`` from any folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli.play import register
from arena.intake.house_bots import SAMPLE_BOTS, UnknownBuiltin, in_process, resolve
from tests.referee.helpers import needs_bwrap


def test_names_resolve_to_the_installed_sample_bots():
    assert resolve("random", "solenia") == str(SAMPLE_BOTS / "random_bot")
    assert resolve("greedy", "black_angel") == str(SAMPLE_BOTS / "black_angel_greedy")
    assert resolve("greedy", "solenia") == str(SAMPLE_BOTS / "solenia_greedy")
    assert resolve("ismcts", "black_angel") == str(SAMPLE_BOTS / "ismcts")
    assert all((Path(resolve(n, "solenia")) / "bot.py").is_file() for n in ("random", "greedy", "ismcts"))


def test_the_registry_finds_the_house_bots_without_importing_them():
    """The platform sits below the sample bots (they import arena.sdk): it finds their folder
    through the import system and loads a bot's code only when a caller asks for it by name."""
    probe = (
        "import sys\n"
        "from arena.intake import house_bots\n"
        "folders = [house_bots.resolve(n, 'solenia') for n in house_bots.NAMES]\n"
        "assert not any(m == 'sample_bots' or m.startswith('sample_bots.') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('sample_bots'))\n"
        "act = house_bots.in_process('greedy', 'solenia')\n"
        "assert act.__module__ == 'sample_bots.solenia_greedy.bot', act.__module__\n"
    )
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    with pytest.raises(UnknownBuiltin, match="no built-in greedy bot for nosuch"):
        in_process("greedy", "nosuch")
    with pytest.raises(UnknownBuiltin, match="does not play in process"):
        in_process("random", "solenia")


def test_a_path_or_address_is_left_alone_and_an_existing_folder_wins(tmp_path, monkeypatch):
    assert resolve("127.0.0.1:50061", "solenia") == "127.0.0.1:50061"
    assert resolve("./mybot", "solenia") == "./mybot"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greedy").mkdir()
    assert resolve("greedy", "solenia") == "greedy"


def test_a_game_without_a_greedy_bot_is_a_clear_error():
    with pytest.raises(UnknownBuiltin, match="no built-in greedy bot for toy"):
        resolve("greedy", "toy")


@needs_bwrap
def test_play_accepts_names_from_any_folder(tmp_path):
    @click.group()
    def group() -> None:
        """test group"""

    register(group)
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        result = CliRunner().invoke(group, ["play", "solenia", "--bot", "ismcts", "--bot", "greedy",
                                            "--seed", "3", "--decision-ms", "150", "--bank-ms", "2000"])
        bad = CliRunner().invoke(group, ["play", "toy", "--bot", "greedy", "--bot", "random"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    assert "ismcts" in result.output and "solenia_greedy" in result.output
    assert "forfeit" not in result.output
    assert bad.exit_code == 2 and "no built-in greedy bot for toy" in bad.output


def test_the_learned_house_bot_exists_where_a_game_has_one_and_the_runtime_can_run_it(monkeypatch):
    from arena.intake import house
    from referee import runtime

    assert resolve("learned", "solenia") == str(SAMPLE_BOTS / "solenia_learned")
    with pytest.raises(UnknownBuiltin, match="no built-in learned bot for black_angel"):
        resolve("learned", "black_angel")
    have_runtime = all(runtime.offered()[p] for p in ("numpy", "onnxruntime"))
    assert ("house-learned" in house.house_sources("solenia")) is have_runtime
    assert "house-learned" not in house.house_sources("black_angel")
    # A server without the learned extra keeps its other house bots instead of failing.
    monkeypatch.setattr(runtime, "installed", lambda name: None if name == "onnxruntime" else "9")
    assert sorted(house.house_sources("solenia")) == ["house-greedy", "house-ismcts", "house-random"]
