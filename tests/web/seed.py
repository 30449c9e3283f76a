"""Test data for the website, written through the platform's models and recording code.

Matches are real: a toy game is played by its engine with seeded random choices, its record is
built with :class:`referee.record.MatchRecord` exactly as the runner writes it, and the result
goes through :func:`arena.records.recording.record_result` (ratings, history, tournament progress).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, Ladder, Rating, Tournament, TournamentEntry, session_scope
from arena.evaluation import ratings
from arena.records.recording import create_match, record_result
from referee import registry
from referee.record import Decision, Forfeit, MatchRecord, SeatTotals
from referee.rng import Rng

XSS_NAME = "<script>alert(1)</script>"


def add_bot(session: Session, name: str, game: str = "toy", owner: str = "alice") -> BotVersion:
    """A bot with one hosted version and its fresh rating row."""
    bot = Bot(name=name, owner=owner, game=game, active=True)
    session.add(bot)
    session.flush()
    skill = ratings.initial_skill()
    version = BotVersion(
        bot_id=bot.id,
        number=1,
        kind="hosted",
        source=f"/bots/{bot.id}",
        digest=str(bot.id),
        initial_mu=skill.mu,
        initial_sigma=skill.sigma,
    )
    session.add(version)
    session.flush()
    session.add(
        Rating(
            bot_version_id=version.id,
            game=game,
            mu=skill.mu,
            sigma=skill.sigma,
            provisional=True,
            games_played=0,
            distinct_opponents=0,
            opponent_counts={},
            seat_counts={},
            player_counts={},
        )
    )
    session.flush()
    return version


def play_record(
    match_id: str,
    names: list[str],
    seed: int,
    forfeit_seat: int | None = None,
    game: str = "toy",
    variant: str | None = None,
    policy: Callable[[dict[str, Any], list[Any]], str] | None = None,
    policies: list[Callable[[dict[str, Any], list[Any]], str] | None] | None = None,
) -> MatchRecord:
    """Play a game with seeded random choices (or a bot's ``act(observation, options)``
    ``policy``; ``policies``: one per seat, None for a seat's seeded random choice) and return
    its record, as the runner writes it."""
    state = registry.new_game(game, len(names), seed, variant)
    rng = Rng(seed * 7919 + 1)
    record = MatchRecord(
        match_id=match_id,
        game=game,
        variant=state.variant,
        players=len(names),
        seed=seed,
        time_control={"decision_ms": 2000, "bank_ms": 5000},
        seats=[{"name": n, "kind": "hosted"} for n in names],
    )
    totals = [SeatTotals(seat=i) for i in range(len(names))]
    n = 0
    while not state.is_over():
        seat = state.to_move()
        assert seat is not None
        options = state.legal_options()
        forced = forfeit_seat is not None and seat == forfeit_seat and n >= 2
        if forced:
            choice = options[0].id
        elif policies is not None and policies[seat] is not None:
            choice = policies[seat](state.observation(seat), options)
        elif policy is not None:
            choice = policy(state.observation(seat), options)
        else:
            choice = options[rng.below(len(options))].id
        events = state.apply(choice)
        comment = "" if forced else (XSS_NAME if n == 1 else f"thinking about {choice}")
        record.decisions.append(
            Decision(
                n=n,
                seat=seat,
                option=choice,
                wall_ms=12.5 + n,
                cpu_ms=None,
                comment=comment,
                forced=forced,
                events=events,
            )
        )
        if not forced:
            totals[seat].decisions += 1
            totals[seat].time_used_ms += 12.5 + n
        n += 1
    record.result = state.result().to_json()
    if forfeit_seat is not None:
        record.forfeits.append(
            Forfeit(
                seat=forfeit_seat, reason="timeout", message="no answer within 2000 ms", decision=2
            )
        )
    record.totals = totals
    return record


@dataclass
class Seeded:
    """What :func:`seed_site` wrote, for assertions."""

    bot_ids: dict[str, int] = field(default_factory=dict)
    match_ids: list[str] = field(default_factory=list)
    forfeit_match: str = ""
    tournament_id: int = 0


def seed_site(url: str, matches: int = 6) -> Seeded:
    """Four toy bots (one named like an XSS attack), a tournament and real toy matches."""
    out = Seeded()
    with session_scope(url) as s:
        names = ["alpha", "bravo", "charlie", XSS_NAME]
        # four authors: two bots of one author never share a rated table (arena.intake.authors)
        versions = [add_bot(s, n, owner=("alice", "bob", "carol", "dave")[i]) for i, n in enumerate(names)]
        for n, v in zip(names, versions, strict=True):
            out.bot_ids[n] = v.bot_id
        t = Tournament(
            name="Toy Cup",
            game="toy",
            variant="base",
            players=2,
            rounds=1,
            status="running",
            matches_total=matches + 2,
            matches_done=0,
        )
        s.add(t)
        s.flush()
        out.tournament_id = t.id
        for i, v in enumerate(versions):
            s.add(TournamentEntry(tournament_id=t.id, bot_version_id=v.id, position=i))
        s.add(Ladder(game="toy", variant="base", enabled=True, player_counts={}))
        vids = [v.id for v in versions]
        label = {v.id: f"{n} v1" for n, v in zip(names, versions, strict=True)}
    for i in range(matches):
        pair = [vids[i % 4], vids[(i + 1 + i // 4) % 4]]
        if pair[0] == pair[1]:
            pair[1] = vids[(i + 2) % 4]
        forfeit = 1 if i == matches - 1 else None
        with session_scope(url) as s:
            m = create_match(
                s,
                "toy",
                "base",
                pair,
                seed=100 + i,
                kind="tournament",
                tournament_id=out.tournament_id,
                round_no=0,
                table_no=i,
                sandbox=False,
            )
            match_id = m.id
        record = play_record(match_id, [label[v] for v in pair], 100 + i, forfeit)
        with session_scope(url) as s:
            record_result(s, match_id, record.to_dict())
        out.match_ids.append(match_id)
        if forfeit is not None:
            out.forfeit_match = match_id
    with session_scope(url) as s:
        # Two scheduled tables not played yet: the schedule shows them as pending.
        create_match(
            s,
            "toy",
            "base",
            [vids[0], vids[2]],
            seed=900,
            kind="tournament",
            tournament_id=out.tournament_id,
            round_no=1,
            table_no=0,
            sandbox=False,
        )
        create_match(
            s,
            "toy",
            "base",
            [vids[1], vids[3]],
            seed=901,
            kind="tournament",
            tournament_id=out.tournament_id,
            round_no=1,
            table_no=1,
            sandbox=False,
        )
    return out


def add_engine_match(url: str, game: str, players: int, seed: int) -> str:
    """One finished match of a real engine (random seeded play), recorded like a worker would."""
    with session_scope(url) as s:
        versions = [add_bot(s, f"{game}-{seed}-{i}", game=game) for i in range(players)]
        vids = [v.id for v in versions]
        variant = registry.get_spec(game).default_variant
        match_id = create_match(s, game, variant, vids, seed=seed, sandbox=False).id
    names = [f"{game}-{seed}-{i} v1" for i in range(players)]
    record = play_record(match_id, names, seed, game=game, variant=variant)
    with session_scope(url) as s:
        record_result(s, match_id, record.to_dict())
    return match_id
