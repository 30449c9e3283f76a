"""House bots: registered once per game under the system owner, on the ladder, marked on the
leaderboard; and a version held by its SPRT never shows there or plays."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import select

from arena.competition import ladder
from arena.db import Bot, BotVersion, Match, dispose_all, session_scope
from arena.intake import bots, house
from arena.server.results import leaderboard

RANDOM = str(Path(house.builtin_bots.SAMPLE_BOTS) / "random_bot")


def test_house_bots_are_idempotent_on_the_ladder_and_marked(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'house.sqlite3'}"
    try:
        with session_scope(url) as s:
            first = house.ensure_house_bots(s, "solenia")
            again = house.ensure_house_bots(s, "solenia")
            # learned too where this Python has the learned extra (numpy, onnxruntime)
            expected = sorted(house.house_sources("solenia"))
            assert set(expected) - {"house-learned"} == {"house-greedy", "house-ismcts", "house-random"}
            assert first == again and len(first) == len(expected)
            names = sorted(b.name for b in s.scalars(select(Bot).where(Bot.owner == house.HOUSE_OWNER)))
            assert names == expected
            mine = bots.register_version(s, "solenia", RANDOM, name="author-bot", owner="alice")
            # A held second version (its SPRT running) must not replace v1 anywhere.
            held = BotVersion(bot_id=mine.bot_id, number=2, kind="hosted", source="/nowhere", digest="x",
                              initial_mu=25.0, initial_sigma=25 / 3, held=True)
            s.add(held)
            ladder.ensure_ladder(s, "solenia", queue_target=6, sandbox=False, house=True)
            ids = ladder.tick(s, "solenia", random.Random(3))
            assert ids
            seated = {seat.bot_version_id for m in s.scalars(select(Match).where(Match.id.in_(ids))) for seat in m.seats}
            assert seated & set(first)  # house bots play on the ladder
            assert held.id not in seated and mine.id in seated
            board = leaderboard(s, "solenia", 50)
            rows = {r.bot: r.house for r in board.rows}
            assert rows == {**{f"{name} v1": True for name in expected}, "author-bot v1": False}
    finally:
        dispose_all()


def test_ladder_house_switch_on_off_and_as_is(tmp_path: Path) -> None:
    """``ensure_ladder(house=True/False/None)`` (``arena ladder GAME --house/--no-house``, the
    API's ``StartLadderRequest.house``): seats, removes or keeps the house bots; automata and
    ratings are untouched."""
    url = f"sqlite:///{tmp_path / 'switch.sqlite3'}"
    try:
        with session_scope(url) as s:
            hal = house.ensure_automaton(s, "solenia", "virtual-player-summer")
            ladder.ensure_ladder(s, "solenia", sandbox=False, house=True)
            count = len(house.house_sources("solenia"))
            assert house.active_house_bots(s, "solenia") == count >= 3
            ladder.ensure_ladder(s, "solenia", sandbox=False)  # None: as they are
            assert house.active_house_bots(s, "solenia") == count
            ladder.ensure_ladder(s, "solenia", sandbox=False, house=False)
            assert house.active_house_bots(s, "solenia") == 0
            owners = {v.bot.owner for v in bots.latest_versions(s, "solenia")}
            assert house.HOUSE_OWNER not in owners
            assert s.get(BotVersion, hal).bot.active  # the automaton stays a reference
    finally:
        dispose_all()
