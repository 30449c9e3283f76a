"""An event's lifecycle on a real SQLite database (arena/competition/lifecycle.py): entries open and
close, a late entry joins a running Swiss with 0 points for the rounds it missed, a withdrawal
forfeits only the matches not yet started and is never paired again, a deactivated bot is
withdrawn by itself, pause holds matches and resume releases them, a stuck match is sent again
once and then scored as an unrated double forfeit, and a corrected result is audited and
rebuilds the ratings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.competition import lifecycle, tournaments
from arena.db import Bot, Match, Rating, Tournament, TournamentAudit, session_scope, utcnow
from arena.intake import bots
from arena.records import recording

GAME = "toy"


def _bot(tmp_path: Path, owner: str, name: str) -> int:
    folder = tmp_path / f"{owner}-{name}"
    folder.mkdir(exist_ok=True)
    (folder / "bot.py").write_text(f"# {owner}/{name}\n")
    with session_scope() as s:
        return bots.register_version(s, GAME, str(folder), name=name, owner=owner).bot_id


def _bot_of(s, bot_id: int) -> Bot:  # noqa: ANN001
    return s.get(Bot, bot_id)


def _finish(tid: int, round_no: int | None = None) -> list[str]:
    """Record every pending match (of one round): the first seat wins."""
    with session_scope() as s:
        query = select(Match.id).where(Match.tournament_id == tid, Match.status == "pending")
        if round_no is not None:
            query = query.where(Match.round == round_no)
        ids = list(s.scalars(query.order_by(Match.round, Match.table)))
    for mid in ids:
        with session_scope() as s:
            recording.record_result(s, mid, {"result": {"ranks": [1, 2], "scores": [1, 0]}, "forfeits": []})
    return ids


def _open_swiss(tmp_path: Path, n: int, rounds: int = 3) -> tuple[int, list[int]]:
    ids = [_bot(tmp_path, f"u{i}", f"b{i}") for i in range(n)]
    with session_scope() as s:
        t = tournaments.create_tournament(s, GAME, [], 2, rounds=rounds, format="swiss", open_entries=True,
                                          organiser="olga", decision_ms=1000, bank_ms=3000, sandbox=False)
        for bot_id in ids:
            lifecycle.enter(s, t, _bot_of(s, bot_id), f"u{bot_id}")
        tid = t.id
    return tid, ids


def test_entries_late_entry_and_withdrawal(db_url: str, tmp_path: Path) -> None:
    tid, ids = _open_swiss(tmp_path, 4)
    late = _bot(tmp_path, "late", "comer")
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.status, t.entries_open, len(t.entries)) == ("open", True, 4)
        with pytest.raises(lifecycle.LifecycleError, match="entered already"):
            lifecycle.enter(s, t, _bot_of(s, ids[0]), "olga")
        lifecycle.start(s, t, "olga")
        assert (t.status, t.entries_open, t.matches_total) == ("scheduled", False, 6)
        with pytest.raises(lifecycle.LifecycleError, match="closed"):
            lifecycle.enter(s, t, _bot_of(s, late), "late")
        t.status, t.started_at = "running", utcnow()
    _finish(tid, 0)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.set_entries(s, t, True, "olga", "late entries welcome")
        entry = lifecycle.enter(s, t, _bot_of(s, late), "late")
        assert entry.joined_round == 1
        gone = t.entries[0].bot_version_id
        assert lifecycle.withdraw(s, t, gone, "olga", "asked to leave") == 0  # round 1 not paired yet
    assert tournaments.pair_next_round(tid)  # round 2: the late entry plays, the withdrawn one does not
    with session_scope() as s:
        t = s.get(Tournament, tid)
        seated = {seat.bot_version_id for m in t.matches if m.round == 1 for seat in m.seats}
        matches = s.scalars(select(Match).where(Match.tournament_id == tid)).all()
        assert entry.bot_version_id in seated and gone not in seated
        assert len(seated) == 4 and len(matches) == 4  # 4 active entries: 2 tables
        rows = {r.version_id: r for r in tournaments.swiss_standings(s, t)}
        assert rows[entry.bot_version_id].score == 0 and rows[entry.bot_version_id].games == 0
        assert rows[gone].games == 1  # the game it played stands
        # withdrawing a bot seated in a pending match forfeits that match, unrated
        victim = next(v for v in seated if v != entry.bot_version_id)
        assert lifecycle.withdraw(s, t, victim, "olga", "no longer answers") == 1
        forfeited = next(m for m in t.matches if m.round == 1 and victim in {x.bot_version_id for x in m.seats})
        s.refresh(forfeited)
        assert (forfeited.status, forfeited.rated) == ("done", False)
        assert {x.bot_version_id: x.rank for x in forfeited.seats}[victim] == 2
        actions = [a.action for a in lifecycle.audit_log(s, t)]
        assert actions.count("withdraw") == 2 and "forfeit" in actions and "late_entry" in actions


def test_deactivated_bot_is_withdrawn_and_pause_resume(db_url: str, tmp_path: Path) -> None:
    tid, ids = _open_swiss(tmp_path, 5)
    with session_scope() as s:
        s.get(Bot, ids[4]).active = False
        t = s.get(Tournament, tid)
        lifecycle.start(s, t, lifecycle.OPERATOR)
        assert [e.withdrawn_reason for e in t.entries if e.withdrawn_at] == ["b4 was deactivated"]
        assert t.matches_total == 6  # 4 entries left: 2 tables a round
        t.status, t.started_at = "running", utcnow()
        assert lifecycle.pause(s, t, "olga", "server move") == 2
        assert set(s.scalars(select(Match.status).where(Match.tournament_id == tid))) == {"paused"}
    assert not tournaments.stalled_swiss(tid)  # a paused event pairs nothing
    with session_scope() as s:
        t = s.get(Tournament, tid)
        released = lifecycle.resume(s, t, "olga", "back")
        assert len(released) == 2 and t.status == "running"
        with pytest.raises(lifecycle.LifecycleError, match="not paused"):
            lifecycle.resume(s, t, "olga")


def test_round_deadline_retries_once_then_double_forfeit(db_url: str, tmp_path: Path) -> None:
    tid, _ = _open_swiss(tmp_path, 4, rounds=2)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.start(s, t, "olga")
        t.status, t.started_at, t.round_deadline_s = "running", utcnow(), 60
        old = utcnow() - timedelta(seconds=61)
        first, second = sorted(t.matches, key=lambda m: m.table)
        first.queued_at = second.queued_at = old
        first.status, first.worker, first.lease_until = "running", "stuck-worker", 9e12
    with session_scope() as s:
        steps, resend = lifecycle.enforce_deadlines(s)
    assert [st.action for st in steps] == ["deadline_retry"] * 2 and len(resend) == 2
    with session_scope() as s:
        m = s.get(Match, first.id)
        assert (m.status, m.worker) == ("pending", None)  # another worker may take it
        steps, _ = lifecycle.enforce_deadlines(s)
        assert steps == []  # sent again just now: its second deadline has not passed
    later = utcnow() + timedelta(seconds=61)
    with session_scope() as s:
        steps, resend = lifecycle.enforce_deadlines(s, now=later)
    assert [st.action for st in steps] == ["deadline_forfeit"] * 2 and resend == []
    with session_scope() as s:
        m = s.get(Match, first.id)
        assert (m.status, m.rated, m.error) == ("failed", False, lifecycle.DEADLINE_FORFEIT)
        t = s.get(Tournament, tid)
        assert t.matches_done == 2
        assert all(r.score == 0 for r in tournaments.swiss_standings(s, t))  # double forfeits score nothing
    assert tournaments.pair_next_round(tid)  # the round no longer waits
    # the first match's worker was alive after all: its late result stands, counted once
    with session_scope() as s:
        recording.record_result(s, first.id, {"result": {"ranks": [1, 2], "scores": [1, 0]}, "forfeits": []})
    with session_scope() as s:
        steps, _ = lifecycle.enforce_deadlines(s, now=later)
    assert [st.action for st in steps] == ["late_result"]
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.matches_done, t.status) == (2, "running")
        assert s.get(Match, first.id).status == "done"
        steps, _ = lifecycle.enforce_deadlines(s, now=later)
        assert steps == []  # logged and set right once


def test_correction_is_audited_and_rebuilds_ratings(db_url: str, tmp_path: Path) -> None:
    tid, _ = _open_swiss(tmp_path, 2, rounds=1)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.start(s, t, "olga")
        t.status, t.started_at = "running", utcnow()
    (mid,) = _finish(tid)
    with session_scope() as s:
        m = s.get(Match, mid)
        winner, loser = (x.bot_version_id for x in sorted(m.seats, key=lambda x: x.seat))
        mu = {r.bot_version_id: r.mu for r in s.scalars(select(Rating))}
        assert mu[winner] > mu[loser]
        t = s.get(Tournament, tid)
        assert t.status == "done"
        with pytest.raises(lifecycle.LifecycleError, match="say why"):
            lifecycle.correct_result(s, t, mid, [2, 1], "olga", " ")
        with pytest.raises(lifecycle.LifecycleError, match="one rank from 1 to 2"):
            lifecycle.correct_result(s, t, mid, [1, 3], "olga", "typo")
        assert lifecycle.correct_result(s, t, mid, [2, 1], "olga", "the arbiter saw an illegal move") is True
    with session_scope() as s:
        mu = {r.bot_version_id: r.mu for r in s.scalars(select(Rating))}
        assert mu[loser] > mu[winner]  # rebuilt from the corrected history
        t = s.get(Tournament, tid)
        rows = tournaments.swiss_standings(s, t)
        assert rows[0].version_id == loser
        row = s.scalars(select(TournamentAudit).where(TournamentAudit.action == "correct")).one()
        assert (row.actor, row.match_id, row.detail["before"], row.detail["after"]) == ("olga", mid, [1, 2], [2, 1])
        assert row.reason == "the arbiter saw an illegal move" and row.at is not None


def test_only_the_events_organiser_or_the_operator_manages_it(db_url: str, tmp_path: Path) -> None:
    tid, _ = _open_swiss(tmp_path, 2, rounds=1)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.check_manager(t, "olga", "organiser")
        lifecycle.check_manager(t, lifecycle.OPERATOR, None)
        with pytest.raises(lifecycle.Forbidden, match="managed by olga"):
            lifecycle.check_manager(t, "otto", "organiser")
        with pytest.raises(lifecycle.Forbidden, match="only organisers"):
            lifecycle.check_manager(t, "olga", "user")


def test_cli_runs_an_event_and_refuses_plainly(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's CLI: open, enter by OWNER/NAME, set a deadline, start (played here: no
    broker), correct a result, read the audit log; a mistake is one line, never a traceback."""
    import shutil

    from click.testing import CliRunner

    from arena.cli import cli
    from tests.platform.conftest import RANDOM_BOT

    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    if not shutil.which("bwrap"):
        monkeypatch.setenv("ARENA_SANDBOX", "0")
    with session_scope() as s:
        for i in range(3):
            bots.register_version(s, GAME, str(RANDOM_BOT), name=f"r{i}", owner=f"ann{i}")
    run = CliRunner().invoke
    out = run(cli, ["tournament", "create", GAME, "--rounds", "2", "--decision-ms", "1000", "--bank-ms", "3000"])
    assert out.exit_code == 0, out.output
    tid = int(out.output.split()[1])
    out = run(cli, ["tournament", "enter", str(tid), "ann0/r0", "ann1/r1", "ann2/r2"])
    assert out.exit_code == 0, out.output
    out = run(cli, ["tournament", "enter", str(tid), "ann0/r0"])
    assert out.exit_code == 1 and "r0 has entered already" in out.output and "Traceback" not in out.output
    assert run(cli, ["tournament", "deadline", str(tid), "600"]).exit_code == 0
    out = run(cli, ["tournament", "start", str(tid)])
    assert out.exit_code == 0, out.output
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.status, t.matches_done, t.round_deadline_s, t.organiser) == ("done", 2, 600, None)
        mid = s.scalars(select(Match.id).where(Match.tournament_id == tid).order_by(Match.round)).first()
    out = run(cli, ["tournament", "correct", str(tid), mid, "2,1"])
    assert out.exit_code == 2 and "--reason" in out.output  # the reason is required
    out = run(cli, ["tournament", "correct", str(tid), mid, "2,1", "--reason", "seat 1 used a banned book"])
    assert out.exit_code == 0, out.output
    out = run(cli, ["tournament", "audit", str(tid)])
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert [line.split()[3] for line in lines][:2] == ["create", "enter"]
    assert any("correct" in line and "banned book" in line and "operator" in line for line in lines)
    out = run(cli, ["tournament", "pause", str(tid)])
    assert out.exit_code == 1 and "only a running event can be paused" in out.output


def test_arena_serve_plays_an_event_the_website_started(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a broker the website plays nothing (plays_matches=False): the event waits
    ``scheduled`` until ``arena serve``'s ticker (tasks.sweep_events) starts and plays it."""
    import shutil

    from arena.play import events
    from arena.workers import tasks
    from tests.platform.conftest import RANDOM_BOT

    monkeypatch.delenv("ARENA_BROKER_URL", raising=False)
    if not shutil.which("bwrap"):
        monkeypatch.setenv("ARENA_SANDBOX", "0")
    with session_scope() as s:
        bot_ids = [bots.register_version(s, GAME, str(RANDOM_BOT), name=f"w{i}", owner=f"wa{i}").bot_id
                   for i in range(2)]
    olga = events.Actor("olga", "organiser")
    tid, _ = events.create(None, olga, game=GAME, players=2, rounds=1, format="round_robin", decision_ms=1000,
                           bank_ms=3000, plays_matches=False)
    for bot_id in bot_ids:
        events.enter(None, tid, bot_id, olga)
    assert events.start(None, tid, olga, plays_matches=False) == ""
    with session_scope() as s:
        assert s.get(Tournament, tid).status == "scheduled"  # nobody has sent it
    tasks.set_local_workers(2)
    assert tasks.sweep_events() == 2  # a double round-robin of two bots
    tasks.wait_local()
    with session_scope() as s:
        t = s.get(Tournament, tid)
        assert (t.status, t.matches_done) == ("done", 2)


def test_an_entry_whose_new_upload_fails_qualification_is_withdrawn(db_url: str, tmp_path: Path) -> None:
    from arena.db.accounts import QUALIFIED, REFUSED, Submission

    tid, ids = _open_swiss(tmp_path, 3)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.start(s, t, "olga")
        for number, status in ((1, QUALIFIED), (2, REFUSED)):  # bot 0's v2 refused after it entered
            s.add(Submission(bot_id=ids[0], number=number, kind="hosted", source="/x", status=status))
        s.add(Submission(bot_id=ids[1], number=1, kind="hosted", source="/x", status=REFUSED))  # not newer
        s.flush()
        gone = lifecycle.withdraw_unfit(s, t)
        assert [e.version.bot_id for e in t.entries if e.bot_version_id in gone] == [ids[0]]
        assert "b0's newest submission (v2) failed qualification" in t.entries[0].withdrawn_reason
        assert t.entries[0].withdrawn_by == lifecycle.SYSTEM


def test_a_bot_deactivated_between_rounds_is_not_paired_again(db_url: str, tmp_path: Path) -> None:
    tid, ids = _open_swiss(tmp_path, 4)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        lifecycle.start(s, t, "olga")
        t.status, t.started_at = "running", utcnow()
    _finish(tid, 0)
    with session_scope() as s:
        s.get(Bot, ids[2]).active = False
    assert len(tournaments.pair_next_round(tid)) == 1  # 3 active at 2 seats: a table and a bye
    with session_scope() as s:
        t = s.get(Tournament, tid)
        gone = next(e for e in t.entries if e.version.bot_id == ids[2])
        assert (gone.withdrawn_by, gone.withdrawn_reason) == ("system", "b2 was deactivated")
        seated = {x.bot_version_id for m in t.matches if m.round == 1 for x in m.seats}
        assert len(seated) == 2 and gone.bot_version_id not in seated


def test_a_refused_start_leaves_the_event_open(db_url: str, tmp_path: Path) -> None:
    tid, _ = _open_swiss(tmp_path, 1)
    with session_scope() as s:
        t = s.get(Tournament, tid)
        with pytest.raises(lifecycle.LifecycleError, match="need at least 2 entries; 1 so far"):
            lifecycle.start(s, t, "olga")
        assert (t.status, t.entries_open) == ("open", True)
