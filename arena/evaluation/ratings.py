"""TrueSkill per game: free-for-all with ranks and ties, forfeits last, and exact rebuilds.

Choices, and why:

* **One TrueSkill environment per game** (mu 25, sigma 25/3, beta sigma/2, tau sigma/100 — the
  package defaults, which the rating scale of the leaderboard is read against).
* **Draw probability** (:data:`DRAW_PROBABILITY`): TrueSkill turns it into the *draw margin*, the
  performance gap below which two seats count as tied, so it should match how often adjacent
  seats really share a rank. Measured (adjacent finishing positions that tie, engine
  tie-breakers applied): Black Angel 24-32 % with random play (low integer scores) but 3 of 72
  in the demo with the greedy bot; Solenia 3-5 % with random play, about 1 % in the demo. We
  rate bots that are meant to play well, so Black Angel gets 10 % and Solenia 3 %; the toy test
  game ties 40 % of the time and gets 40 %. A value near 0 would be wrong twice over: every
  narrow win would look decisive, and a real tie would hit a near-zero margin. Changing a value
  changes every rating of that game: run ``arena ratings rebuild GAME --write`` afterwards.
* **Guard against floating-point failures**: the fast float backend is used first; when the
  package raises ``FloatingPointError`` (it does on extreme ratings, e.g. a 300-point gap with a
  tiny sigma) or returns a non-finite value, the same update is recomputed with the ``mpmath``
  backend. The choice depends only on the inputs, so a rebuild takes the same path and produces
  bit-identical floats.
* **Forfeits last**: a seat that forfeited is ranked behind every seat that did not, all
  forfeiting seats tied among themselves, whatever the engine's score says
  (:func:`effective_ranks`). The match runner already does this; we enforce it again because a
  rating is the wrong place to trust anyone else's bookkeeping.
* **Leaderboard key** mu − 3·sigma (:func:`conservative`); a version is *provisional* while its
  sigma is above :data:`PROVISIONAL_SIGMA`.

* **Solo automata are players**: Hal (per difficulty and rules), Solenia's virtual player and
  Orbital's bot players (or its 22 VP goal) are pseudo-players of the ``house`` owner, one per
  variant (:func:`arena.intake.house.automaton_name`), rated in the game's table; a match they took part
  in is rated as a free-for-all of its seats plus the automaton (:func:`automaton_table`), and the
  match row keeps which automaton and its rank, so a rebuild replays it the same way.

* **Ratings only from games that were played** (:func:`idle_seats`, :func:`settle`): a seat
  that made no legal move of its own (it forfeited before its first one: never connected, never
  started, or its first answer was a fault) did not play. A match in which no seat played is
  recorded but not rated: no rating moves, it takes no ``rating_seq``. In a match some seat did
  play, an idle seat still loses (forfeits last), but the match never makes it look better: it
  takes its update only when that raises neither its mu nor its mu − 3·sigma, and otherwise
  keeps its old rating — a bot that never connected does not gain, and dodging an opponent is
  never better than losing to it. (Usually a loss lowers both, so a bot that keeps failing to
  start still becomes certain, and a ladder that prefers uncertain bots stops picking it.)
* **Anchors hold still** (:func:`is_anchored`): the house bots and the solo automata (owner
  ``house``) are the scale's reference points. A house bot with a calibration in
  ``anchors.json`` (:func:`anchor_skill`: ``house-random`` is the fixed point, μ 25; the others
  their measured equivalent there, :func:`mu_from_score`) starts at it with σ =
  :data:`ANCHOR_SIGMA` and so is fixed from its first game. Any other anchor is rated like any bot until it is
  calibrated — its sigma at or below :data:`CALIBRATED_SIGMA` (about 25 two-seat games) — and
  from then on its rating is fixed: a match is rated as usual against its fixed rating, the
  other seats take their updates, and the anchor keeps its old values. The rule depends only on
  the history, so a rebuild fixes each anchor at the same match.

Rebuild: :func:`rebuild` replays every rated match of a game in ``rating_seq`` order from each
version's stored initial rating, and :func:`compare_with_stored` checks it against the ``ratings``
table — equality is exact (``==`` on floats), not approximate.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from statistics import NormalDist
from typing import Any

import trueskill

from arena import shortcuts

MU0 = 25.0
SIGMA0 = MU0 / 3
#: Below this sigma a version is no longer provisional (about 1/3 of the starting uncertainty).
PROVISIONAL_SIGMA = 3.0
#: An anchor (a house bot or automaton) whose sigma is at or below this is calibrated: its
#: rating is fixed from then on. 2.0 takes about 25 two-seat games against a varied field
#: (3.0, the provisional bar, about 11: too few to place a reference point to within a couple
#: of points of mu); see docs/tournaments-and-ratings.md.
CALIBRATED_SIGMA = 2.0
#: The owner of every anchor (arena.intake.house.HOUSE_OWNER; an account may not take the name).
ANCHOR_OWNER = "house"
#: The house bots' calibration: the scale's fixed point and each anchor's measured equivalent
#: there (written by ``benchmarks/anchor_calibration.py``; see :func:`anchor_skill`).
ANCHORS_FILE = Path(__file__).with_name("anchors.json")
_ANCHORS = json.loads(ANCHORS_FILE.read_text())
#: The sigma a calibrated anchor starts with and keeps: at or below :data:`CALIBRATED_SIGMA`, so
#: it is fixed from its first game (:func:`is_anchored`).
ANCHOR_SIGMA: float = float(_ANCHORS["anchor_sigma"])
DEFAULT_DRAW_PROBABILITY = 0.05
DRAW_PROBABILITY: dict[str, float] = {
    "black_angel": 0.10,
    "solenia": 0.03,
    "toy": 0.40,
}


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating as two plain floats (what the database stores)."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def is_provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def is_anchored(owner: str | None, sigma: float) -> bool:
    """Whether a version of ``owner`` whose rating has ``sigma`` is a fixed anchor now: a house
    bot or automaton that is calibrated. Its sigma never changes again, so this stays true."""
    return owner == ANCHOR_OWNER and sigma <= CALIBRATED_SIGMA


def mu_from_score(score: float, games: int) -> float:
    """An anchor's mu at the scale's fixed point from its ``score`` (win 1, draw ½) over ``games``
    two-seat games against the fixed-point bot: TrueSkill's performance model between two
    near-certain players gives P(win) = Φ(Δμ / (√2·β)), so Δμ = √2·β·Φ⁻¹(score); the score is
    clamped to [1/(2·games), 1 − 1/(2·games)] so a clean sweep gives a finite, cautious mu."""
    low = 1 / (2 * games)
    share = min(max(score, low), 1 - low)
    return float(_ANCHORS["fixed_point"]["mu"]) + math.sqrt(2) * (SIGMA0 / 2) * NormalDist().inv_cdf(share)


def anchor_skill(game: str, name: str) -> Skill | None:
    """The calibrated rating of house bot ``name`` in ``game`` (``anchors.json``): the fixed
    point for ``house-random`` in every game, else the measured equivalent; None for a house bot
    with no calibration (it is rated until :data:`CALIBRATED_SIGMA`, the fallback rule)."""
    point = _ANCHORS["fixed_point"]
    if name == point["bot"]:
        return Skill(float(point["mu"]), ANCHOR_SIGMA)
    entry = _ANCHORS["games"].get(game, {}).get(name)
    return None if entry is None else Skill(float(entry["mu"]), ANCHOR_SIGMA)


def idle_seats(forfeits: Sequence[dict], decisions: Sequence[dict] | None) -> set[int]:
    """The seats that made no legal move of their own: forfeited seats with no decision they
    chose (``forced`` false) in ``decisions``, the record's list. A seat that never forfeited
    played. Without the decisions (a record stored without them) a seat counts as idle when it
    forfeited before the match's first decision, the one case the forfeit alone proves."""
    out = set()
    moved = None if decisions is None else {
        int(d["seat"]) for d in decisions if isinstance(d, dict) and not d.get("forced")}
    for f in forfeits or ():
        seat = int(f["seat"])
        if moved is None:
            if int(f.get("decision") or 0) == 0:
                out.add(seat)
        elif seat not in moved:
            out.add(seat)
    return out


def settle(before: Sequence[Skill], after: Sequence[Skill], anchored: Sequence[bool],
           idle: Sequence[bool]) -> list[Skill]:
    """What each actor of a rated match keeps of its update (:func:`rate`'s ``after``): an
    anchored actor its old rating; an idle seat the update when it raises neither mu nor
    mu − 3·sigma, else its old rating (TrueSkill can raise them for a seat ranked last: a loss
    to a far stronger seat shrinks sigma more than it costs mu; idle seats tie each other);
    everyone else the update. The update itself is computed with every actor's rating as it
    was, so the others are rated against the anchor's fixed rating."""
    out = []
    for old, new, fixed, lazy in zip(before, after, anchored, idle, strict=True):
        if fixed or (lazy and (new.mu > old.mu or new.conservative > old.conservative)):
            out.append(old)
        else:
            out.append(new)
    return out


def draw_probability(game: str) -> float:
    return DRAW_PROBABILITY.get(game, DEFAULT_DRAW_PROBABILITY)


@cache
def environment(game: str, backend: str | None = None) -> trueskill.TrueSkill:
    """The TrueSkill environment of ``game`` (``backend`` None = float, or ``"mpmath"``)."""
    return trueskill.TrueSkill(
        mu=MU0,
        sigma=SIGMA0,
        beta=SIGMA0 / 2,
        tau=SIGMA0 / 100,
        draw_probability=draw_probability(game),
        backend=backend,
    )


def initial_skill() -> Skill:
    return Skill(MU0, SIGMA0)


def effective_ranks(ranks: Sequence[int], forfeited: Sequence[int] = (),
                    automaton_rank: int | None = None) -> list[int]:
    """Competition ranks (1 = best, ties shared) with every forfeited seat tied last.

    The non-forfeited seats keep their order and ties; they are re-ranked 1.. among themselves.
    A solo game's automaton (``automaton_rank``, from the result's details) counts as one more
    finisher, so a solo loss stays rank 2.
    """
    lost = set(forfeited)
    playing = [s for s in range(len(ranks)) if s not in lost]
    out = [0] * len(ranks)
    ordered = sorted(playing, key=lambda s: ranks[s])
    for pos, seat in enumerate(ordered):
        if pos and ranks[seat] == ranks[ordered[pos - 1]]:
            out[seat] = out[ordered[pos - 1]]
        else:
            out[seat] = pos + 1
    behind = [automaton_rank is not None and automaton_rank < ranks[s] for s in range(len(ranks))]
    for seat in playing:
        out[seat] += 1 if behind[seat] else 0
    for seat in lost:
        out[seat] = len(playing) + 1 + (1 if automaton_rank is not None else 0)
    return out


def automaton_table(result: dict, seats: int, forfeited: Sequence[int] = ()) -> tuple[list[int], int] | None:
    """(each seat's rank, the automaton's rank) of a match an engine-played automaton took part
    in, or None for an ordinary match.

    Two kinds of results name one: a solo game (``details["automaton_rank"]``: Hal, the virtual
    player, Orbital's bot players or its 22 VP goal, ranked by the engine against the seat) and
    a multiplayer game with bot players (Orbital ``bots-N``: ``details["places"]`` ranks every
    actor, the bot players after the seats; the automaton is the best-placed bot player, as in
    Orbital's competitive solo). Seats keep their order (forfeits last, behind the automaton),
    and the automaton ranks 1 + the finishing seats strictly ahead of it; equal places tie.
    """
    details = result.get("details") or {}
    if seats == 1 and "automaton_rank" in details:
        engine = [int(r) for r in (result.get("engine_ranks") or result["ranks"])]
        auto = int(details["automaton_rank"])
    elif details.get("bot_vp") and len(details.get("places") or []) > seats:
        places = [int(p) for p in details["places"]]
        engine, auto = places[:seats], min(places[seats:])
    else:
        return None
    lost = set(forfeited)
    seat_ranks = effective_ranks(engine, sorted(lost), auto)
    ahead = sum(1 for s in range(seats) if s not in lost and engine[s] < auto)
    return seat_ranks, 1 + ahead


def rate(game: str, skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """One free-for-all update: seat ``i`` had ``skills[i]`` and finished at ``ranks[i]``.

    Each seat is a one-player team; ranks are competition ranks (lower is better, equal = tie).
    """
    if len(skills) != len(ranks) or len(skills) < 2:
        raise ValueError("a rated match needs at least two seats, one rank per seat")
    if len(skills) == 2 and shortcuts.enabled(shortcuts.TRUESKILL_TWO_SEAT):
        try:
            out = _rate_two(game, skills[0], skills[1], ranks[0], ranks[1])
        except (ArithmeticError, ValueError):  # whatever it is, the package's own path decides
            out = None
        if out is not None and all(math.isfinite(s.mu) and math.isfinite(s.sigma) and s.sigma > 0
                                   for s in out):
            return out
    teams = [(trueskill.Rating(mu=s.mu, sigma=s.sigma),) for s in skills]
    try:
        new = environment(game).rate(teams, ranks=list(ranks))
        out = [Skill(float(t[0].mu), float(t[0].sigma)) for t in new]
        if all(math.isfinite(s.mu) and math.isfinite(s.sigma) and s.sigma > 0 for s in out):
            return out
    except FloatingPointError:
        pass
    new = environment(game, "mpmath").rate(teams, ranks=list(ranks))
    return [Skill(float(t[0].mu), float(t[0].sigma)) for t in new]


@cache
def _draw_margin_two(game: str) -> float:
    """The draw margin of a two-seat match of ``game`` (the float backend's, as the package
    computes it for its factor graph)."""
    env = environment(game)
    return trueskill.calc_draw_margin(env.draw_probability, 2, env)


def _mu(pi: float, tau: float) -> float:
    return pi and tau / pi  # trueskill.mathematics.Gaussian.mu


def _rate_two(game: str, one: Skill, two: Skill, rank_one: int, rank_two: int) -> list[Skill]:
    """:func:`rate` of a two-seat match with the float backend, bit for bit what
    ``trueskill.TrueSkill.rate`` returns for two one-player teams, in a fraction of its CPU
    (~10 µs instead of ~180: the package builds a factor graph of Gaussian objects and message
    dicts for every update; a worker rates every match it plays).

    It is the package's own message schedule for two teams, written out on plain floats: every
    value is computed by the same operations, in the same order, from the same operands (a
    Gaussian is its precision ``pi`` and precision-adjusted mean ``tau``; a message divided
    out and multiplied back in is subtracted and added back, as the package does, even where
    that looks like a no-op: it need not be one in floating point). The truncation uses the
    environment's own ``v``/``w`` functions, so it raises ``FloatingPointError`` exactly where
    the package does; :func:`rate` then takes the package's path, as for any other exception.
    tests/platform/test_ratings.py compares both on many random and extreme inputs with ``==``.

    A shortcut (``trueskill_two_seat``, :mod:`arena.shortcuts`, docs/shortcuts.md): it copies the
    package's insides, so it runs only on the trueskill release it was tested with; otherwise, or
    with it turned off, :func:`rate` uses ``trueskill.TrueSkill.rate`` for two seats too.
    """
    env = environment(game)
    if one.sigma == 0 or two.sigma == 0:
        raise ValueError("sigma**2 should be greater than 0")
    # Sorted by rank, stably (the package's ``sorted(..., key=rank)``): a tie keeps the order.
    swapped = rank_two < rank_one
    first, second = (two, one) if swapped else (one, two)
    if rank_one == rank_two:
        v_func, w_func = env.v_draw, env.w_draw
    else:
        v_func, w_func = env.v_win, env.w_win
    dynamic, variance, margin = env.tau, env.beta ** 2, _draw_margin_two(game)
    # Rating layer (PriorFactor.down): each rating as the package's Rating (pi, tau), read back
    # as mu and sigma, widened by the dynamic factor.
    prior = []
    for skill in (first, second):
        pi = skill.sigma ** -2
        tau = pi * skill.mu
        sigma = math.sqrt(math.sqrt(1 / pi) ** 2 + dynamic ** 2)
        value_pi = sigma ** -2
        prior.append((value_pi, value_pi * _mu(pi, tau)))
    # Performance layer (LikelihoodFactor.down), then each team's performance (SumFactor.down
    # over its one player).
    perf, team = [], []
    for pi, tau in prior:
        a = 1. / (1. + variance * pi)
        p_pi, p_tau = a * pi, a * tau
        perf.append((p_pi, p_tau))
        t_mu = 0 + 1 * _mu(p_pi, p_tau)
        t_pi = 1. / (0 + 1 / float(p_pi))
        team.append((t_pi, t_pi * t_mu))
    (t0_pi, t0_tau), (t1_pi, t1_tau) = team
    # The difference of the two performances (SumFactor.down, coefficients +1, -1) and its
    # truncation, until it settles (at most 10 rounds, as the package).
    d_pi = d_tau = 0  # the variable, and its two messages: from the sum, from the truncation
    sum_pi = sum_tau = trunc_pi = trunc_tau = 0
    for _ in range(10):
        mu = 0 + 1 * _mu(t0_pi - 0, t0_tau - 0)
        pi_inv = 0 + 1 ** 2 / float(t0_pi - 0)
        mu += -1 * _mu(t1_pi - 0, t1_tau - 0)
        pi_inv += (-1) ** 2 / float(t1_pi - 0)
        pi = 1. / pi_inv
        tau = pi * mu
        old_pi, old_tau, sum_pi, sum_tau = sum_pi, sum_tau, pi, tau
        d_pi, d_tau = d_pi - old_pi + pi, d_tau - old_tau + tau
        div_pi, div_tau = d_pi - trunc_pi, d_tau - trunc_tau
        sqrt_pi = math.sqrt(div_pi)
        args = (div_tau / sqrt_pi, margin * sqrt_pi)
        v = v_func(*args)
        w = w_func(*args)
        denom = (1. - w)
        pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
        trunc_pi, trunc_tau = pi + trunc_pi - d_pi, tau + trunc_tau - d_tau
        pi_delta = abs(d_pi - pi)
        delta = 0. if pi_delta == math.inf else max(abs(d_tau - tau), math.sqrt(pi_delta))
        d_pi, d_tau = pi, tau
        if delta <= trueskill.DELTA:
            break
    # Back up to each team's performance (SumFactor.up to the left, then to the right term).
    div_pi, div_tau = d_pi - sum_pi, d_tau - sum_tau
    mu = 0 + 1.0 * _mu(div_pi, div_tau)
    pi_inv = 0 + 1.0 ** 2 / float(div_pi)
    mu += 1.0 * _mu(t1_pi - 0, t1_tau - 0)
    pi_inv += 1.0 ** 2 / float(t1_pi - 0)
    up0_pi = 1. / pi_inv
    up0_tau = up0_pi * mu
    t0_pi, t0_tau = t0_pi - 0 + up0_pi, t0_tau - 0 + up0_tau
    mu = 0 + 1.0 * _mu(t0_pi - up0_pi, t0_tau - up0_tau)
    pi_inv = 0 + 1.0 ** 2 / float(t0_pi - up0_pi)
    mu += -1.0 * _mu(div_pi, div_tau)
    pi_inv += (-1.0) ** 2 / float(div_pi)
    up1_pi = 1. / pi_inv
    up1_tau = up1_pi * mu
    t1_pi, t1_tau = t1_pi - 0 + up1_pi, t1_tau - 0 + up1_tau
    # Then to each player's performance (SumFactor.up) and rating (LikelihoodFactor.up).
    out = []
    for (t_pi, t_tau), (msg_pi, msg_tau), (p_pi, p_tau), (r_pi, r_tau) in zip(
            ((t0_pi, t0_tau), (t1_pi, t1_tau)), team, perf, prior, strict=True):
        mu = 0 + 1.0 * _mu(t_pi - msg_pi, t_tau - msg_tau)
        pi_inv = 0 + 1.0 ** 2 / float(t_pi - msg_pi)
        pi = 1. / pi_inv
        tau = pi * mu
        new_p_pi, new_p_tau = p_pi - 0 + pi, p_tau - 0 + tau
        m_pi, m_tau = new_p_pi - p_pi, new_p_tau - p_tau
        a = 1. / (1. + variance * m_pi)
        r_pi, r_tau = r_pi - 0 + a * m_pi, r_tau - 0 + a * m_tau
        # Read out as the package does (Rating(mu, sigma)), then as rate() reads a Rating.
        mu = float(_mu(r_pi, r_tau))
        sigma = float(math.sqrt(1 / r_pi) if r_pi else math.inf)
        pi = sigma ** -2
        tau = pi * mu
        out.append(Skill(float(_mu(pi, tau)), float(math.sqrt(1 / pi) if pi else math.inf)))
    return out[::-1] if swapped else out


# --- rebuilding from the match history -------------------------------------------------------


def _json_record(match) -> Any:  # noqa: ANN001, ANN401 - a Match row; its record as JSON data
    if match.record is None and match.record_compact is not None:
        raise ValueError(f"match {match.id} is stored compactly: pass read_record="
                         "arena.records.stored.record_data to read it")
    return match.record


def rebuild(session, game: str, read_record=_json_record) -> dict[int, Skill]:  # noqa: ANN001 - a SQLAlchemy Session
    """Every rating of ``game`` recomputed from the history: ``{bot_version_id: Skill}``.

    ``read_record(match)``: a match's stored record as JSON data, read only for a match with a
    forfeit after its first decision (:func:`decisions_for_idle`); a caller above this room
    passes :func:`arena.records.stored.record_data`, which also reads compact records.

    Starts each version at its stored initial rating and applies the rated matches in
    ``rating_seq`` order — the order in which they were recorded — with the same seats, ranks,
    forfeits and idle seats, through the same :func:`rate` and :func:`settle`, anchors fixed
    from the match at which they were calibrated. A match recorded before the played-games rule
    in which no seat played is skipped, as it would be recorded now.
    """
    from sqlalchemy import select
    from sqlalchemy.orm import defer, selectinload

    from arena.db.models import Bot, BotVersion, Match

    versions = session.execute(
        select(BotVersion.id, BotVersion.initial_mu, BotVersion.initial_sigma, Bot.owner)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .where(Bot.game == game)
    ).all()
    skills = {vid: Skill(mu, sigma) for vid, mu, sigma, _ in versions}
    owners = {vid: owner for vid, _, _, owner in versions}
    matches = session.scalars(
        select(Match)
        .where(Match.game == game, Match.rating_seq.is_not(None))
        .order_by(Match.rating_seq)
        .options(defer(Match.record), defer(Match.record_compact), selectinload(Match.seats))  # records: only when needed
    ).all()
    for match in matches:
        seats = sorted(match.seats, key=lambda s: s.seat)
        idle = idle_seats(match.forfeits or [], decisions_for_idle(match.forfeits, lambda m=match: read_record(m)))
        if len(idle) >= len(seats):  # no seat played: not rated
            continue
        ids = [s.bot_version_id for s in seats]
        ranks = [s.rank for s in seats]
        lazy = [s.seat in idle for s in seats]
        if match.automaton_version_id is not None:  # rated against a solo automaton too
            ids.append(match.automaton_version_id)
            ranks.append(match.automaton_rank)
            lazy.append(False)
        if len(ids) < 2:  # a solo game recorded before automata were rated: it changed nothing
            continue
        before = [skills[v] for v in ids]
        fixed = [is_anchored(owners.get(v), b.sigma) for v, b in zip(ids, before, strict=True)]
        new = settle(before, rate(game, before, ranks), fixed, lazy)
        for vid, skill in zip(ids, new, strict=True):
            skills[vid] = skill
    return skills


def decisions_for_idle(forfeits: Sequence[dict] | None, record) -> Sequence[dict] | None:  # noqa: ANN001
    """The record's decisions when :func:`idle_seats` needs them — some seat forfeited after the
    first decision — else None, which :func:`idle_seats` reads the same way. ``record`` is a
    callable giving the stored record (data or JSON text), so a match without such a forfeit
    never reads or parses it: the recorder and the rebuild both decide through here."""
    if not any(int(f.get("decision") or 0) > 0 for f in forfeits or ()):
        return None
    data = record()
    if isinstance(data, (str, bytes)):
        import orjson

        data = orjson.loads(data)
    return data.get("decisions") if isinstance(data, dict) else None


def compare_with_stored(session, game: str, read_record=_json_record) -> list[str]:  # noqa: ANN001
    """Differences between :func:`rebuild` and the ``ratings`` table (empty list = identical)."""
    from sqlalchemy import select

    from arena.db.models import Rating

    rebuilt = rebuild(session, game, read_record)
    stored = {r.bot_version_id: r for r in session.scalars(select(Rating).where(Rating.game == game))}
    problems = []
    for vid, skill in sorted(rebuilt.items()):
        row = stored.get(vid)
        if row is None:
            problems.append(f"version {vid}: no stored rating")
        elif (row.mu, row.sigma) != (skill.mu, skill.sigma):
            problems.append(
                f"version {vid}: stored mu={row.mu!r} sigma={row.sigma!r}, "
                f"rebuilt mu={skill.mu!r} sigma={skill.sigma!r}"
            )
    for vid in sorted(set(stored) - set(rebuilt)):
        problems.append(f"version {vid}: stored rating for a version of another game")
    return problems


def write_rebuilt(session, game: str, read_record=_json_record) -> int:  # noqa: ANN001
    """Overwrite the stored mu/sigma with the rebuilt values; returns how many rows changed."""
    from sqlalchemy import select

    from arena.db.models import Rating

    changed = 0
    rebuilt = rebuild(session, game, read_record)
    for row in session.scalars(select(Rating).where(Rating.game == game)):
        skill = rebuilt.get(row.bot_version_id)
        if skill and (row.mu, row.sigma) != (skill.mu, skill.sigma):
            row.mu, row.sigma = skill.mu, skill.sigma
            row.provisional = is_provisional(skill.sigma)
            changed += 1
    return changed
