"""The generic conformance kit: checks any engine against the engine contract.

Every engine's test suite calls :func:`check_configuration` for each (players, variant) of its
spec. The checks are deliberately engine-agnostic, so a new game gets the same scrutiny as the
old ones without anybody writing game-specific tests for these properties:

* random playouts reach the end; options are never empty before it; every option id applies;
* option ids within one decision are unique and every option has a label;
* an illegal id raises :class:`IllegalAction` and leaves the state exactly as it was;
* clone and serialise round-trip to equal states, and a clone is independent of its original;
* seed + the list of chosen ids replays to the same states and result, and set-up reports
  the same opening events every time;
* every seat's ``observation(seat)`` at every decision, and the final one, matches the game's
  published observation schema strictly (no field it does not list), and every option id
  offered matches one of its ``x-option-ids`` forms: the schema is exact for every
  configuration the spec lists (advanced and solo variants too);
* ``spectator_view()`` and ``public_view()`` are JSON-ready and match the spectator schema (on
  the sampled decisions and at the end); an observation does not change when everything that
  seat cannot see is re-sampled (``determinise``): no leaks;
* event lines and choices carry honest audiences (:func:`check_audiences`): what a seat may
  read live never differs between two worlds that seat cannot tell apart, and a public
  choice never tells a seat something its observation does not; ``public_view()`` does not
  change when any seat's hidden information is re-sampled;
* the result has one score and one competition rank per seat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from referee import observation_schema
from referee.engine import GameState, IllegalAction, Result, audience_of, visible_to
from referee.rng import Rng

#: A playout longer than this many decisions is treated as a game that never ends.
DEFAULT_MAX_DECISIONS = 20_000


class ConformanceError(AssertionError):
    """An engine broke the contract; the message says how and where."""


@dataclass
class PlayoutStats:
    games: int = 0
    decisions: int = 0
    longest: int = 0
    checks: dict[str, int] = field(default_factory=dict)

    def count(self, name: str) -> None:
        self.checks[name] = self.checks.get(name, 0) + 1


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _where(state: GameState, step: int) -> str:
    return f"[{state.spec.name} {state.players}p {state.variant} seed={state.seed} decision {step}]"


def check_options(state: GameState, step: int) -> list[str]:
    opts = state.legal_options()
    if not opts:
        raise ConformanceError(f"{_where(state, step)} no legal options but the game is not over")
    ids = [o.id for o in opts]
    if len(set(ids)) != len(ids):
        raise ConformanceError(f"{_where(state, step)} duplicate option ids: {ids}")
    for o in opts:
        if not isinstance(o.id, str) or not o.id or not isinstance(o.label, str) or not o.label:
            raise ConformanceError(f"{_where(state, step)} option without id or label: {o!r}")
    return ids


def check_illegal_rejected(state: GameState, step: int) -> None:
    before = _canonical(state.to_json())
    legal = set(state.option_ids())
    for bad in ("", "no-such-option", "\x00", "9" * 30, "../../etc/passwd"):
        if bad in legal:
            continue
        try:
            state.apply(bad)
        except IllegalAction:
            pass
        else:
            raise ConformanceError(f"{_where(state, step)} illegal id {bad!r} was accepted")
        if _canonical(state.to_json()) != before:
            raise ConformanceError(f"{_where(state, step)} illegal id {bad!r} changed the state")


def check_roundtrip(state: GameState, step: int) -> None:
    data = state.to_json()
    text = _canonical(data)
    copy = type(state).from_json(json.loads(text))
    if _canonical(copy.to_json()) != text:
        raise ConformanceError(f"{_where(state, step)} to_json/from_json does not round-trip")
    twin = state.clone()
    if _canonical(twin.to_json()) != text:
        raise ConformanceError(f"{_where(state, step)} clone differs from the original")
    # A clone must be independent: playing on it leaves the original untouched.
    if not twin.is_over():
        twin.apply(twin.legal_options()[-1].id)
        if _canonical(state.to_json()) != text:
            raise ConformanceError(f"{_where(state, step)} playing on a clone changed the original")
    for seat in range(state.players):
        _ = _canonical(state.observation(seat))
    _ = _canonical(state.spectator_view())
    check_observation_schema(state, step)
    check_spectator_schema(state, step)


def check_observation_schema(state: GameState, step: int) -> None:
    """Every seat's observation matches the game's published schema (when it has one)."""
    game = state.spec.name
    if not observation_schema.has_schema(game):
        return
    for seat in range(state.players):
        try:
            observation_schema.validate_observation(game, state.observation(seat))
        except observation_schema.SchemaError as exc:
            raise ConformanceError(f"{_where(state, step)} seat {seat}: {exc}") from None


def check_spectator_schema(state: GameState, step: int) -> None:
    """The replay view (``spectator_view``) and the live board (``public_view``) match the game's
    published spectator schema (when it has one)."""
    game = state.spec.name
    if not observation_schema.has_schema(game, "spectator"):
        return
    for name, view in (("spectator_view()", state.spectator_view()), ("public_view()", state.public_view())):
        try:
            observation_schema.validate_spectator_view(game, view)
        except observation_schema.SchemaError as exc:
            raise ConformanceError(f"{_where(state, step)} {name}: {exc}") from None


def check_option_grammar(state: GameState, step: int, ids: list[str]) -> None:
    """Every option id has one of the forms the game's schema documents (x-option-ids)."""
    game = state.spec.name
    if not observation_schema.has_schema(game):
        return
    for option_id in ids:
        try:
            observation_schema.validate_option_id(game, option_id)
        except observation_schema.SchemaError as exc:
            raise ConformanceError(f"{_where(state, step)} {exc}") from None


def check_no_leaks(state: GameState, step: int, salt: int) -> bool:
    """Re-sample hidden information for each seat; its observation must not change.

    Returns True when determinising changed something (so the check had teeth).
    """
    changed = False
    full = _canonical(state.to_json())
    for seat in range(state.players):
        seen = _canonical(state.observation(seat))
        for k in range(2):
            other = state.determinise(seat, salt * 7919 + seat * 31 + k)
            if _canonical(other.observation(seat)) != seen:
                raise ConformanceError(
                    f"{_where(state, step)} seat {seat}'s observation changed when only hidden "
                    "information was re-sampled (determinise) — it leaks, or determinise "
                    "changes what the seat can see"
                )
            if other.to_move() != state.to_move():
                raise ConformanceError(f"{_where(state, step)} determinise changed whose move it is")
            if state.to_move() == seat and other.option_ids() != state.option_ids():
                raise ConformanceError(
                    f"{_where(state, step)} determinise for seat {seat} changed its legal options"
                )
            if _canonical(other.to_json()) != full:
                changed = True
        if _canonical(state.to_json()) != full:
            raise ConformanceError(f"{_where(state, step)} determinise changed the original state")
    return changed


#: At most this many options of one decision get the audience check (the first and a sample).
AUDIENCE_OPTIONS = 12


def _world(state: GameState, seat: int, salt: int) -> GameState:
    """``state`` with what ``seat`` cannot see re-sampled, but the same future rolls.

    Future randomness is not anybody's secret: a die rolled in the open may be announced in a
    public line (and need not stay in any observation). Keeping the generator makes both worlds
    roll alike, so only *hidden information* differs between them.
    """
    world = state.determinise(seat, salt)
    rng = getattr(state, "rng", None)
    if isinstance(rng, Rng):
        world.rng = Rng(rng.state)
    return world


def _readable(lines: list[str], seat: int) -> list[str]:
    return [str(line) for line in lines if visible_to(line, seat)]


def check_audience_seats(state: GameState, step: int, lines: list[str], where: str) -> None:
    """Every audience a line carries names real seats (an empty audience would hide a line from
    everyone until the end: use a seat list, or make the line public)."""
    for line in lines:
        audience = audience_of(line)
        if audience is not None and (not audience or not all(
                isinstance(a, int) and 0 <= a < state.players for a in audience)):
            raise ConformanceError(f"{_where(state, step)} {where}: line {str(line)!r} has audience "
                                   f"{audience!r}; use seats 0..{state.players - 1}")


def check_audiences(state: GameState, step: int, salt: int) -> int:
    """The live log and the live choices leak nothing (see :mod:`referee.engine`'s audiences).

    For each seat ``q`` a world ``W`` is sampled that ``q`` cannot tell from this one
    (:func:`_world`). Then, for each legal option ``o`` of the seat to move:

    * if ``o`` is legal in ``W`` too and ``q``'s observation after ``o`` is the same in both
      worlds, the lines ``q`` may read (public or ``seen_by`` ``q``) must be the same: else a
      line names something hidden from ``q`` — it needs an audience without ``q``;
    * if ``o`` is *not* legal in ``W`` but some option of ``W`` leaves ``q`` with the same
      observation, then learning that ``o`` was chosen tells ``q`` more than its observation:
      ``option_audience(o)`` must leave ``q`` out (a card chosen from a hidden hand, say).

    Sound by construction (every failure is a real difference a seat could exploit); cheap
    (one re-sample per seat). Returns how many comparisons had teeth.
    """
    mover = state.to_move()
    ids = state.option_ids()
    if len(ids) > AUDIENCE_OPTIONS:
        pick = Rng(salt)
        ids = [ids[0]] + [ids[1 + pick.below(len(ids) - 1)] for _ in range(AUDIENCE_OPTIONS - 1)]
    worlds = [(q, _world(state, q, salt * 131 + q)) for q in range(state.players)]
    teeth = 0
    for option_id in dict.fromkeys(ids):
        audience = state.option_audience(option_id)
        if audience is not None and not all(isinstance(a, int) for a in audience):
            raise ConformanceError(f"{_where(state, step)} option_audience({option_id!r}) must be None or seats")
        real = state.clone()
        lines = real.apply(option_id)
        for q, world in worlds:
            after = _canonical(real.observation(q))
            legal = world.option_ids()
            if option_id in legal:
                twin = world.clone()
                twin_lines = twin.apply(option_id)
                if _canonical(twin.observation(q)) != after:
                    continue
                teeth += 1
                mine, theirs = _readable(lines, q), _readable(twin_lines, q)
                if mine != theirs:
                    diff = next((a, b) for a, b in zip_longest(mine, theirs, fillvalue="") if a != b)
                    raise ConformanceError(
                        f"{_where(state, step)} after option {option_id!r} seat {q} may read "
                        f"{diff[0]!r} here but {diff[1]!r} in a world it cannot tell apart: the line "
                        f"names information hidden from seat {q}; give it an audience (seen_by) "
                        "without that seat"
                    )
            elif q != mover and (audience is None or q in audience):
                for other in legal:
                    twin = world.clone()
                    twin.apply(other)
                    if _canonical(twin.observation(q)) == after:
                        raise ConformanceError(
                            f"{_where(state, step)} seat {mover}'s option {option_id!r} is shown to "
                            f"seat {q} (option_audience), but it names information hidden from seat "
                            f"{q}: in a world seat {q} cannot tell apart it is not legal. Return the "
                            "seats that may know it from option_audience"
                        )
                teeth += 1
    return teeth


def check_public_view(state: GameState, step: int, salt: int) -> None:
    """``public_view()`` is JSON-ready and the same whatever hidden information is re-sampled."""
    view = _canonical(state.public_view())
    for q in range(state.players):
        world = _world(state, q, salt * 977 + q)
        if _canonical(world.public_view()) != view:
            raise ConformanceError(
                f"{_where(state, step)} public_view() changed when seat {q}'s hidden information "
                "was re-sampled: it shows something a spectator may not know"
            )


def check_result(state: GameState) -> Result:
    result = state.result()
    n = state.players
    if len(result.scores) != n or len(result.ranks) != n:
        raise ConformanceError(f"{_where(state, -1)} result must have one score and rank per seat")
    ranks = sorted(result.ranks)
    if "automaton_rank" in result.details:  # a solo game ranks the seat against the automaton
        ranks = sorted(ranks + [int(result.details["automaton_rank"])])
    for pos, rank in enumerate(ranks):
        ok = rank == 1 if pos == 0 else rank in (ranks[pos - 1], pos + 1)
        if not ok:
            raise ConformanceError(f"{_where(state, -1)} ranks are not competition ranks: {result.ranks}")
    _ = _canonical(result.to_json())
    return result


def random_playout(
    cls: type[GameState],
    players: int,
    variant: str,
    seed: int,
    *,
    deep_every: int = 0,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    stats: PlayoutStats | None = None,
) -> tuple[GameState, list[str]]:
    """Play uniformly random options to the end, checking the contract along the way.

    ``deep_every``: run the expensive checks (illegal ids, round-trips, leaks) on every n-th
    decision (0 = never). Option sanity is checked at every decision.
    """
    stats = stats or PlayoutStats()
    state = cls.new(players, seed, variant)
    opening = state.opening_events()
    if not isinstance(opening, list) or not all(isinstance(e, str) for e in opening):
        raise ConformanceError(f"{_where(state, 0)} opening_events() must return a list of str")
    check_audience_seats(state, 0, opening, "opening_events()")
    chooser = Rng(seed ^ 0xC0FFEE)
    ids: list[str] = []
    step = 0
    while not state.is_over():
        if step >= max_decisions:
            raise ConformanceError(f"{_where(state, step)} game did not end in {max_decisions} decisions")
        seat = state.to_move()
        if seat is None or not 0 <= seat < players:
            raise ConformanceError(f"{_where(state, step)} to_move() returned {seat!r}")
        options = check_options(state, step)
        check_option_grammar(state, step, options)
        check_observation_schema(state, step)
        stats.count("observations-validated")
        if deep_every and step % deep_every == 0:
            check_illegal_rejected(state, step)
            check_roundtrip(state, step)
            if check_no_leaks(state, step, seed + step):
                stats.count("determinise-changed")
            if check_audiences(state, step, seed + step):
                stats.count("audience-compared")
            check_public_view(state, step, seed + step)
            stats.count("deep")
        choice = options[chooser.below(len(options))]
        events = state.apply(choice)
        if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
            raise ConformanceError(f"{_where(state, step)} apply() must return a list of str")
        check_audience_seats(state, step, events, f"apply({choice!r})")
        ids.append(choice)
        step += 1
    if state.legal_options():
        raise ConformanceError(f"{_where(state, step)} legal options offered after the end")
    try:
        state.apply(ids[-1] if ids else "x")
    except IllegalAction:
        pass
    else:
        raise ConformanceError(f"{_where(state, step)} an option was accepted after the end")
    check_observation_schema(state, step)
    check_spectator_schema(state, step)
    check_result(state)
    stats.games += 1
    stats.decisions += step
    stats.longest = max(stats.longest, step)
    return state, ids


def check_replay(cls: type[GameState], players: int, variant: str, seed: int, ids: list[str], final: GameState) -> None:
    """Seed + ids must replay to the same final state and result."""
    state = cls.new(players, seed, variant)
    if state.opening_events() != cls.new(players, seed, variant).opening_events():
        raise ConformanceError(f"{_where(state, 0)} set-up events differ between two set-ups")
    for step, option_id in enumerate(ids):
        try:
            state.apply(option_id)
        except IllegalAction as exc:
            raise ConformanceError(f"{_where(state, step)} replay diverged: {exc}") from None
    if _canonical(state.to_json()) != _canonical(final.to_json()):
        raise ConformanceError(f"{_where(state, len(ids))} replay reached a different state")
    if state.result().to_json() != final.result().to_json():
        raise ConformanceError(f"{_where(state, len(ids))} replay reached a different result")


def check_configuration(
    cls: type[GameState],
    players: int,
    variant: str,
    games: int,
    *,
    seed0: int = 1,
    deep_games: int = 3,
    deep_every: int = 7,
) -> PlayoutStats:
    """Run the whole kit for one configuration; raise :class:`ConformanceError` on a breach.

    ``games`` random games are played; the first ``deep_games`` of them also get the expensive
    checks every ``deep_every`` decisions and a full replay check.
    """
    stats = PlayoutStats()
    checked_spec = cls.spec.check(players, variant)
    if checked_spec != variant:
        raise ConformanceError(f"spec.check({players}, {variant!r}) returned {checked_spec!r}")
    for g in range(games):
        seed = seed0 + g
        deep = g < deep_games
        final, ids = random_playout(cls, players, variant, seed, deep_every=deep_every if deep else 0, stats=stats)
        if deep:
            check_replay(cls, players, variant, seed, ids, final)
            check_roundtrip_final(final)
    return stats


def check_roundtrip_final(state: GameState) -> None:
    text = _canonical(state.to_json())
    if _canonical(type(state).from_json(json.loads(text)).to_json()) != text:
        raise ConformanceError(f"{_where(state, -1)} final state does not round-trip")
    if _canonical(state.clone().result().to_json()) != _canonical(state.result().to_json()):
        raise ConformanceError(f"{_where(state, -1)} clone of a finished game has another result")


def configurations(cls: type[GameState]) -> list[tuple[int, str]]:
    """Every (players, variant) a game supports, for pytest parametrisation."""
    return list(cls.spec.configurations)
