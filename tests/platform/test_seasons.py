"""Seasons (issue 39 item 6): entries until the deadline, versions frozen (a later upload of an
entered bot refused, and not used), a final of the top K played by the tournament machinery
with seats rotated, final standings published once and exported; all through ``arena season``
on a real SQLite database with real toy matches."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select, update

from arena.cli import cli
from arena.competition import seasons, tournaments
from arena.db import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Season,
    SeasonEntry,
    Tournament,
    TournamentRound,
    session_scope,
    utcnow,
)
from arena.intake import bots, freeze
from arena.records import recording
from tests.platform.conftest import RANDOM_BOT

SANDBOX = [] if shutil.which("bwrap") else ["--unsafe-no-sandbox"]
FAST = ["--decision-ms", "1000", "--bank-ms", "3000"]


@pytest.fixture
def _no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)


def _run(*args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(cli, list(args))
    if ok:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code != 0, result.output
        assert "Traceback" not in result.output
    return result.output


def _bot_folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(RANDOM_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _upload(folder: Path, name: str, change: str) -> BotVersion:
    """A new upload of ``name``: the folder with one more comment line (new content)."""
    with (folder / "bot.py").open("a", encoding="utf-8") as f:
        f.write(f"# {change}\n")
    with session_scope() as s:
        v = bots.register_version(s, "toy", str(folder), name=name)
        s.expunge(v)
        return v


@pytest.mark.usefixtures("_no_broker")
def test_a_season_from_entries_to_published_standings(sqlite_url: str, tmp_path: Path) -> None:
    folders = {f"b{i}": _bot_folder(tmp_path, f"b{i}") for i in range(4)}
    for name, folder in folders.items():
        _upload(folder, name, "v1")
    out = _run("season", "create", "toy", "Winter", "--deadline", "+1h", "--top", "3", "--final-rounds", "2",
               "-k", "2")
    assert "season 1: Winter (toy)" in out
    for name in folders:
        _run("season", "enter", "1", name)
    assert "already entered" in _run("season", "enter", "1", "b0", ok=False)
    assert "no toy bot 'nobody'" in _run("season", "enter", "1", "nobody", ok=False)
    # before the deadline an entered bot may still improve: a new version is taken
    assert _upload(folders["b0"], "b0", "v2 before the deadline").number == 2
    # nothing is frozen before the deadline unless the organiser says now
    assert "close at" in _run("season", "freeze", "1", ok=False)
    assert "still open for entries" in _run("season", "run-final", "1", *SANDBOX, ok=False)
    out = _run("season", "close-submissions", "1", "--now")
    assert "4 entries frozen" in out and "3 go to the final" in out
    # after the deadline: no entries, and a new version of an entered bot is refused, named
    _upload(folders["b3"], "extra", "not entered")  # another bot, not entered: unaffected
    assert "takes no more entries" in _run("season", "enter", "1", "extra", ok=False)
    with pytest.raises(freeze.SubmissionsClosed, match=r"b1 is entered in season 1 \(Winter\), whose submissions closed"):
        _upload(folders["b1"], "b1", "v2 after the deadline")
    with session_scope() as s:
        entries = {s.get(Bot, e.bot_id).name: e for e in s.scalars(select(SeasonEntry))}
        assert s.get(BotVersion, entries["b0"].frozen_version_id).number == 2  # the version before the deadline
        assert all(e.frozen_rating is not None for e in entries.values())
    out = _run("season", "run-final", "1", "-w", "2", *FAST, *SANDBOX)
    assert "final standings published" in out and "Winter" in out
    with session_scope() as s:
        season = s.get(Season, 1)
        assert season.status == "done" and season.finished_at is not None
        final = s.get(Tournament, season.final_tournament_id)
        assert (final.status, final.format, final.matches_done) == ("done", "round_robin", final.matches_total)
        chosen = seasons.finalists(season)
        assert len(chosen) == 3
        assert sorted(e.bot_version_id for e in final.entries) == sorted(e.frozen_version_id for e in chosen)
        # seats rotated: each finalist sat in each seat equally often, and met each other one
        seats: dict[int, list[int]] = {}
        for seat, vid in s.execute(select(MatchSeat.seat, MatchSeat.bot_version_id)
                                   .join(Match, Match.id == MatchSeat.match_id)
                                   .where(Match.tournament_id == final.id)):
            seats.setdefault(vid, [0, 0])[seat] += 1
        assert len({tuple(c) for c in seats.values()}) == 1 and seats[chosen[0].frozen_version_id][0] == \
            seats[chosen[0].frozen_version_id][1] >= 2
        rows = season.final_standings
        assert [r["finalist"] for r in rows] == [True, True, True, False]
        assert rows[-1]["place"] == 4 and rows[-1]["decided_by"].startswith("rating at the freeze")
        assert sorted(r["place"] for r in rows[:3])[0] == 1
        total = sum(Fraction(r["score"]) for r in rows[:3])
        assert total == final.matches_total  # a point a game, shared exactly
        places = {s.get(Bot, e.bot_id).name: e.final_place for e in season.entries}
        assert sorted(places.values()) == sorted(r["place"] for r in rows)
        published = json.dumps(rows, sort_keys=True)
        # published once: a later change of a result does not move a place
        s.execute(update(MatchSeat).where(MatchSeat.match_id.in_(
            select(Match.id).where(Match.tournament_id == final.id))).values(rank=1))
    with session_scope() as s:
        assert json.dumps(seasons.standings(s, s.get(Season, 1)), sort_keys=True) == published
    # over: the entered bots may upload again
    assert _upload(folders["b1"], "b1", "v2 after the season").number == 2
    # read and export
    out = _run("season", "show", "1")
    assert "final standings published" in out and "b0 v2" in out
    assert "Winter" in _run("season", "list") and "done" in _run("season", "list")
    data = json.loads(_run("season", "export", "1", "--format", "json", "--out", "-"))
    assert data["season"]["published"] is True and [r["place"] for r in data["standings"]] == \
        [r["place"] for r in json.loads(published)]
    csv_text = _run("season", "export", "1", "--format", "csv", "--out", "-")
    assert csv_text.splitlines()[0].startswith("place,bot,bot_id,owner,version") and len(csv_text.splitlines()) == 5
    _run("season", "export", "1", "--out", str(tmp_path))
    assert (tmp_path / "season-1-standings.csv").read_text(encoding="utf-8") == csv_text
    assert "is over" in _run("season", "run-final", "1", *SANDBOX, ok=False)


@pytest.mark.usefixtures("_no_broker")
def test_bad_seasons_withdrawals_and_an_interrupted_final(sqlite_url: str) -> None:
    assert "unknown game" in _run("season", "create", "nogame", "X", "--deadline", "+1d", ok=False)
    assert "not a deadline" in _run("season", "create", "toy", "X", "--deadline", "soon", ok=False)
    assert "already passed" in _run("season", "create", "toy", "X", "--deadline", "2020-01-01", ok=False)
    assert "at least 3 entries" in _run("season", "create", "toy", "X", "--deadline", "+1d", "-k", "3",
                                        "--top", "2", ok=False)
    assert "no season 7" in _run("season", "show", "7", ok=False)
    assert "no seasons yet" in _run("season", "list")
    with session_scope() as s:
        season = seasons.create_season(s, "toy", "Y", utcnow() + timedelta(hours=1), players=2, top_k=2)
        seasons.freeze(s, season, early=True)
        with pytest.raises(seasons.SeasonError, match="0 entrie"):
            seasons.start_final(s, season)  # nobody to play
    # a bot switched off before the deadline is withdrawn: nothing frozen, listed unplaced
    with session_scope() as s:
        entered = [bots.register_version(s, "toy", RANDOM_BOT, name=f"w{i}").bot for i in range(3)]
        season = seasons.create_season(s, "toy", "Z", utcnow() + timedelta(hours=1), players=2, top_k=2)
        for bot in entered:
            seasons.enter(s, season, bot)
        entered[0].active = False
        assert seasons.freeze(s, season, early=True) == 2
        rows = seasons.standings(s, season)
        assert [r["place"] for r in rows] == [1, 2, None] and rows[-1]["bot"] == "w0"
        assert "not active" in rows[-1]["decided_by"]
        # a final whose run was interrupted (started, nothing played): run-final sends it again
        final = seasons.start_final(s, season, 1000, 3000, sandbox=not SANDBOX)
        tournaments.start(s, final)
        sid = season.id
    assert "final standings published" in _run("season", "run-final", str(sid), *FAST, *SANDBOX)
    with session_scope() as s:
        assert [r["place"] for r in s.get(Season, sid).final_standings][-1] is None
    assert seasons.parse_deadline("2026-12-31 18:00").hour == 18
    assert seasons.parse_deadline("+2d", now=utcnow()) > utcnow() + timedelta(days=1)


def test_a_swiss_final_counts_its_byes(sqlite_url: str) -> None:
    """Five finalists at two seats: a bye a round, scored as a win in the season's standings as
    in any Swiss (results recorded as a worker records them)."""
    with session_scope() as s:
        entered = [bots.register_version(s, "toy", RANDOM_BOT, name=f"s{i}").bot for i in range(5)]
        season = seasons.create_season(s, "toy", "Swiss", utcnow() + timedelta(hours=1), players=2, top_k=5,
                                       final_format="swiss", final_rounds=2)
        for bot in entered:
            seasons.enter(s, season, bot)
        seasons.freeze(s, season, early=True)
        final = seasons.start_final(s, season, sandbox=False)
        tournaments.start(s, final)
        sid, tid = season.id, final.id
    for round_no in range(2):
        if round_no:
            assert len(tournaments.pair_next_round(tid)) == 2
        with session_scope() as s:
            ids = list(s.scalars(select(Match.id).where(Match.tournament_id == tid, Match.round == round_no)))
        for mid in ids:
            with session_scope() as s:
                recording.record_result(s, mid, {"result": {"ranks": [1, 2], "scores": [2, 1]}, "forfeits": []})
    with session_scope() as s:
        rows = seasons.finish(s, s.get(Season, sid))
        byes = [b for (r,) in s.execute(select(TournamentRound.byes).where(TournamentRound.tournament_id == tid))
                for b in r]
    assert len(byes) == 2
    assert sum(Fraction(r["score"]) for r in rows) == 4 + 2  # a point a game, one a bye
    for row in rows:
        assert Fraction(row["score"]) >= byes.count(row["version_id"])


def test_a_submission_judged_after_the_deadline_is_refused_not_stuck(sqlite_url: str, tmp_path: Path) -> None:
    """Stored before the deadline, qualified after it: refused with the season named (its
    verdict recorded once, nothing left qualifying), the frozen version unchanged."""
    from arena.db.accounts import QUALIFYING, REFUSED, Submission
    from arena.intake import qualification

    folder = _bot_folder(tmp_path, "late")
    first = _upload(folder, "late", "v1")
    with session_scope() as s:
        season = seasons.create_season(s, "toy", "Late", utcnow() + timedelta(hours=1), players=2, top_k=2)
        seasons.enter(s, season, s.get(Bot, first.bot_id))
        sub = Submission(bot_id=first.bot_id, number=2, kind="hosted", source=str(folder), status=QUALIFYING)
        s.add(sub)
        s.flush()
        sub_id = sub.id
        seasons.freeze(s, season, early=True)
    assert qualification.record_verdict(sub_id, qualification.Outcome(True, "")) == "refused"
    with session_scope() as s:
        row = s.get(Submission, sub_id)
        assert row.status == REFUSED and "whose submissions closed" in row.refusal_message
        assert s.scalars(select(SeasonEntry)).one().frozen_version_id == first.id
        assert len(s.get(Bot, first.bot_id).versions) == 1
