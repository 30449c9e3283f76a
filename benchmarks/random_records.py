"""Real match records made fast: random legal play by the engine itself, so every record replays
(no bots, no sandbox). For the benchmarks and tests of what reads records (``arena export
dataset``, ``arena bench dataset``), which need many matches and never play one."""

from __future__ import annotations

import random

from referee import registry
from referee.engine import audience_of
from referee.record import Decision, MatchRecord, SeatTotals, final_ranks


def played_record(game: str, seed: int, players: int | None = None, variant: str | None = None,
                  match_id: str | None = None) -> MatchRecord:
    """A finished match of ``game`` played by uniform random choices from ``seed``."""
    spec = registry.get_spec(game)
    default_players, default_variant = spec.configurations[0]
    players = players or default_players
    variant = variant or (default_variant if players == default_players else spec.check(players, None))
    state = registry.new_game(game, players, seed, variant)
    opening = list(state.opening_events())
    rng = random.Random(seed)
    decisions, choices = [], []
    while not state.is_over():
        ids = state.option_ids()
        option = rng.choice(ids)
        choices.append(ids.index(option))  # as the match runner keeps them (referee/match.py)
        seat = state.to_move()
        secret = state.option_audience(option)
        events = state.apply(option)
        # rounded as the referee records them (referee/match.py: wall to 0.001 ms, CPU to 0.1 ms)
        wall = rng.uniform(0.3, 40.0)
        decisions.append(Decision(len(decisions), seat, option, round(wall, 3), round(rng.uniform(0.1, wall), 1),
                                  "", False, events,
                                  None if secret is None else list(secret),
                                  [None if (a := audience_of(e)) is None else list(a) for e in events]))
    result = state.result()
    record = MatchRecord(
        match_id=match_id or f"{game[:4]}{seed:028x}", game=game, variant=variant, players=players, seed=seed,
        time_control={"decision_ms": 1000, "bank_ms": 10000},
        seats=[{"name": f"bot{i}", "kind": "hosted"} for i in range(players)],
        opening_events=opening, decisions=decisions,
        result={"scores": list(result.scores), "ranks": final_ranks(list(result.ranks), set(),
                                                                     result.details.get("automaton_rank")),
                "engine_ranks": list(result.ranks), "details": result.details},
        totals=[SeatTotals(i) for i in range(players)],
    )
    record._choices = choices
    return record
