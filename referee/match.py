"""Play one match: start the seats' bots, run the engine to the end, enforce the clock, survive
every fault, and return the :class:`MatchRecord`.

A faulty seat forfeits (ranked last, the reason recorded) and the engine plays it on with
``state.fallback_option()`` so the other seats still finish their game. Whatever happens —
normal end, forfeit, an engine exception, Ctrl-C — every bot's sandbox is killed in ``finally``,
except, with an opt-in :class:`referee.bot_pool.BotPool` (``MatchConfig.pool``), the bots of a
match that ended normally without their fault: those are kept warm for the next match.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from referee import observation_schema, registry
from referee._proto import bot_pb2
from referee.bot_client import DECISION_CAP_FACTOR, SEAT_CALLS, BotClient, BotFault, BotSource
from referee.engine import ConfigError, EngineError, GameState, TimeControl, audience_of
from referee.fair_clock import HOST_LOAD, own_time_ms
from referee.faults import SERVER_ERROR, VOID_LIMIT, proto_number
from referee.protocol import PROTOCOL_VERSION
from referee.record import Decision, Forfeit, MatchRecord, SeatTotals, final_ranks
from referee.sandbox import SandboxError, SandboxLimits, require_bwrap

if TYPE_CHECKING:
    from referee.bot_pool import BotPool

COMMENT_LIMIT = 200


class MatchSetupError(ConfigError):
    """The match cannot start because of its configuration (a user mistake, not a bot fault)."""


class HostOverloaded(EngineError):
    """The match is void: a seat's deadline passed while the host, not its bot, was what was
    slow (the bot was kept waiting for a CPU; see :mod:`referee.fair_clock`). Nothing of the
    match may be rated or charged to anyone: the caller plays it again (a tournament match is
    put back in the queue, a qualification is re-run a bounded number of times), counting the
    void against ``seat`` in the next try's ``MatchConfig.earlier_voids``: the second void at
    one seat's decisions is that seat's forfeit instead (:data:`VOIDS_PER_SEAT`)."""

    code = SERVER_ERROR

    def __init__(self, seat: int, decision: int, message: str) -> None:
        super().__init__(f"{SERVER_ERROR}: seat {seat} at decision {decision}: {message}; "
                         f"the match is void, play it again")
        self.seat = seat
        self.decision = decision
        self.message = message


#: A match voided this many times at one seat's decisions (across its tries, counted by the
#: caller in ``MatchConfig.earlier_voids``) is not voided again: that seat forfeits with
#: ``void_limit``. Replaying a void must not be a free retry for the bot that caused it.
VOIDS_PER_SEAT = 2


@dataclass
class SeatSpec:
    name: str
    source: str  # a folder with bot.py (hosted), or "host:port" (remote)


@dataclass
class MatchConfig:
    game: str
    seats: list[SeatSpec]
    seed: int
    variant: str | None = None
    match_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    time_control: TimeControl | None = None  # None -> the game's spec default
    sandbox: bool = True  # False only with the user's explicit --unsafe-no-sandbox
    startup_ms: int = 10000  # launch to the answer to StartMatch
    #: The bot's own StartMatch work (from its socket being there to its answer): past it the
    #: seat forfeits with start_timeout. Recorded per seat as ``start_ms``.
    start_budget_ms: int = 2000
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    #: Opt-in warm processes (workers): hosted bots are taken from and given back to the pool
    #: instead of being launched and killed per match. None: every bot dies with its match.
    pool: BotPool | None = field(default=None, compare=False, repr=False)
    #: A fork (``arena fork``): these recorded decisions are re-applied first, without asking
    #: the bots (their clocks are charged the recorded time), then the bots play on. Bots see
    #: the match from decision ``len(prefix)`` on.
    prefix: list[Decision] = field(default_factory=list)
    #: Forfeits of the original that happened inside ``prefix``: those seats stay forfeited.
    carried_forfeits: list[Forfeit] = field(default_factory=list)
    #: Where a fork comes from (``{"match_id", "decision", "seat", "bot"}``), kept in the record.
    origin: dict[str, Any] | None = None
    #: Keep each seat's bot source (folder or host:port) in the record, so a local record can
    #: be forked with the same bots; off on servers (their paths are nobody else's business).
    record_sources: bool = False
    #: Live decision events carry the bot's comment (a public choice's). Off by default: live
    #: events reach every watcher, an entrant's own processes included, so a comment would be
    #: a channel between colluding seats while they play. The record always keeps it.
    live_comments: bool = False
    #: A clock of its own for some seats ({seat: TimeControl}), others keep ``time_control``:
    #: a person's seat (:mod:`arena.play.human`) thinks in minutes while the bot across the table
    #: keeps the game's clock. Each seat is told its own clock at StartMatch and in the record.
    seat_time_controls: dict[int, TimeControl] = field(default_factory=dict)
    #: How often earlier tries of this match were void at each seat's decisions
    #: ({seat: voids}, from ``HostOverloaded.seat``): at :data:`VOIDS_PER_SEAT` that seat
    #: forfeits (``void_limit``) instead of voiding the match again.
    earlier_voids: dict[int, int] = field(default_factory=dict)


EventSink = Callable[[dict[str, Any]], None]
#: Receives the engine's ``public_view()`` of the running match (a live board for spectators).
ViewSink = Callable[[dict[str, Any]], None]
#: At most one live board per this many seconds (and always one at the start and the end).
VIEW_INTERVAL_S = 0.25


def audiences(lines: list[str]) -> list[list[int] | None]:
    """Each line's audience for the record: ``None`` (public) or the seats that may read it."""
    return [None if (a := audience_of(line)) is None else list(a) for line in lines]


def public_lines(lines: list[str]) -> list[str]:
    """The lines a live spectator may read now (plain text)."""
    return [str(line) for line in lines if audience_of(line) is None]


class _Seat:
    """A seat's live state during the match: its bot (None once forfeited) and its clock."""

    __slots__ = ("index", "name", "client", "benched", "bank_ms", "totals", "last_cpu", "tc")

    def __init__(self, index: int, name: str, bank_ms: int, tc: TimeControl | None = None) -> None:
        self.index = index
        #: This seat's clock when it is not the match's (MatchConfig.seat_time_controls).
        self.tc = tc
        self.name = name
        self.client: BotClient | None = None
        self.benched: BotClient | None = None  # the bot after its seat forfeited
        self.bank_ms = float(bank_ms)
        self.totals = SeatTotals(seat=index, bank_left_ms=float(bank_ms))
        self.last_cpu: float | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _validate(config: MatchConfig) -> tuple[type[GameState], str, TimeControl, list[BotSource]]:
    """Turn the config into what the runner needs, or raise a :class:`MatchSetupError`."""
    try:
        game = registry.get_game(config.game)
    except ImportError as exc:
        raise MatchSetupError(f"the {config.game} engine cannot be loaded: {exc}") from None
    if not config.seats:
        raise MatchSetupError("a match needs at least one bot")
    try:
        variant = game.spec.check(len(config.seats), config.variant)
    except ConfigError as exc:
        raise MatchSetupError(str(exc)) from None
    tc = config.time_control or game.spec.time_control
    for clock in (tc, *config.seat_time_controls.values()):
        if clock.decision_ms <= 0 or clock.bank_ms < 0:
            raise MatchSetupError("decision time must be positive and the bank not negative")
    if any(not 0 <= seat < len(config.seats) for seat in config.seat_time_controls):
        raise MatchSetupError("a seat's own clock names a seat the match does not have")
    sources = []
    for seat in config.seats:
        try:
            sources.append(BotSource.parse(seat.source))
        except ValueError as exc:
            raise MatchSetupError(str(exc)) from None
    if config.sandbox and any(s.kind == "hosted" for s in sources):
        try:
            require_bwrap()
        except SandboxError as exc:
            raise MatchSetupError(str(exc)) from None
    return game, variant, tc, sources


def run_match(
    config: MatchConfig, on_event: EventSink | None = None, on_view: ViewSink | None = None
) -> MatchRecord:
    """Play one match to the end and return its record. See the module docstring.

    ``on_event`` gets the *live* events, which anyone may watch while the match runs: public
    lines only, and for a choice whose option names hidden information
    (``GameState.option_audience``) only that the seat decided. The record keeps every line
    with its audience. ``on_view`` gets the engine's ``public_view()`` now and then.
    """
    game, variant, tc, sources = _validate(config)
    players = len(config.seats)
    state = game.new(players, config.seed, variant)
    record = MatchRecord(
        match_id=config.match_id,
        game=config.game,
        variant=variant,
        players=players,
        seed=config.seed,
        time_control={"decision_ms": tc.decision_ms, "bank_ms": tc.bank_ms},
        seats=[{"name": s.name, "kind": src.kind} for s, src in zip(config.seats, sources, strict=True)],
        opening_events=list(state.opening_events()),
        started_at=_now(),
        origin=config.origin,
    )
    if config.record_sources:
        for info, spec in zip(record.seats, config.seats, strict=True):
            info["source"] = spec.source
    record.opening_audiences = audiences(record.opening_events)
    # Each decision's choice as its index in the legal options, kept beside the record (not a
    # field: never in its JSON) so the platform stores it compactly without replaying the
    # engine (arena.records.compact).
    record._choices = []
    own = config.seat_time_controls
    for i, clock in own.items():
        record.seats[i]["time_control"] = {"decision_ms": clock.decision_ms, "bank_ms": clock.bank_ms}
    seats = [_Seat(i, s.name, own.get(i, tc).bank_ms, own.get(i)) for i, s in enumerate(config.seats)]
    runner = _Runner(config, state, record, seats, tc, on_event, on_view)
    try:
        runner.emit({"type": "start", "match_id": config.match_id, "game": config.game,
                     "variant": variant, "players": players, "seats": record.seats,
                     "opening_events": public_lines(record.opening_events)})
        runner.view(force=True)
        runner.start_bots(sources)
        runner.carry_forfeits()
        runner.emit({"type": "ready", "match_id": config.match_id,
                     "ready_ms": [s.totals.ready_ms for s in seats],
                     "forfeits": [f.seat for f in record.forfeits]})
        runner.play()
        runner.finish()
    finally:
        runner.close_all()
    return record


def _choice_index(state, options: list, option_id: str) -> int:  # noqa: ANN001 - a GameState
    """``option_id``'s position in the decision's legal options (``options`` when the loop has
    them already, else the engine's ``option_ids()``)."""
    for i, option in enumerate(options):
        if option.id == option_id:
            return i
    return state.option_ids().index(option_id)


class _Runner:
    """The match loop, split out of :func:`run_match` so each step reads on its own."""

    def __init__(
        self,
        config: MatchConfig,
        state: GameState,
        record: MatchRecord,
        seats: list[_Seat],
        tc: TimeControl,
        on_event: EventSink | None,
        on_view: ViewSink | None = None,
    ) -> None:
        self.config = config
        self.on_view = on_view
        self.last_view = 0.0
        self.state = state
        self.record = record
        self.seats = seats
        self.tc = tc
        self.on_event = on_event
        self.clients: list[BotClient] = []
        self.acked: set[int] = set()  # ids of the clients that acknowledged EndMatch
        self.finished = False

    def emit(self, event: dict[str, Any]) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def view(self, force: bool = False) -> None:
        """Hand the public board to ``on_view``, at most every :data:`VIEW_INTERVAL_S`."""
        if self.on_view is None:
            return
        now = time.monotonic()
        if not force and now - self.last_view < VIEW_INTERVAL_S:
            return
        self.last_view = now
        try:
            self.on_view(self.state.public_view())
        except Exception:  # noqa: BLE001 - a live board must never break the match
            pass

    # --- start ----------------------------------------------------------------------------------
    def start_bots(self, sources: list[BotSource]) -> None:
        """Launch every bot first, then wait for all of them together: start-up runs in parallel."""
        for seat, source in zip(self.seats, sources, strict=True):
            try:
                if self.config.pool is not None:
                    seat.client = self.config.pool.take(source, self.config.sandbox,
                                                        self.config.limits)
                else:
                    seat.client = BotClient.launch(source, self.config.sandbox,
                                                   self.config.limits)
                self.clients.append(seat.client)
            except BotFault as fault:
                self.forfeit(seat, fault, 0)
        names = [s.name for s in self.seats]
        timeout_s = self.config.startup_ms / 1000.0

        def start(seat: _Seat) -> BotFault | None:
            request = bot_pb2.MatchStart(
                protocol_version=PROTOCOL_VERSION,
                match_id=self.config.match_id,
                game=self.config.game,
                variant=self.record.variant,
                seat=seat.index,
                players=len(self.seats),
                time_control=bot_pb2.TimeControl(
                    decision_ms=(seat.tc or self.tc).decision_ms, bank_ms=(seat.tc or self.tc).bank_ms
                ),
                seat_names=names,
                observation_schema_version=observation_schema.schema_version(self.config.game),
            )
            try:
                seat.client.start_match(request, timeout_s, self.config.start_budget_ms / 1000.0)
            except BotFault as fault:
                return fault
            # Ready: stopped until its turn, so it cannot slow the seats still starting up, nor
            # later the seat on turn (docs/referee.md, "Bots do not ponder").
            _freeze(seat.client)
            return None

        live = [s for s in self.seats if s.client is not None]
        faults = list(SEAT_CALLS.map(start, live))
        for i, (seat, fault) in enumerate(zip(live, faults, strict=True)):
            if fault is not None and fault.code == SERVER_ERROR:
                faults[i] = self.void(seat.index, 0, fault.message, fault.log_tail)
        for seat, fault in zip(live, faults, strict=True):
            seat.totals.ready_ms = seat.client.ready_ms
            seat.totals.start_ms = seat.client.start_ms
            if fault is not None:
                self.forfeit(seat, fault, 0)
            else:
                seat.last_cpu = seat.client.cpu_ms()

    def carry_forfeits(self) -> None:
        """A fork keeps the original's forfeits from before the fork point."""
        for f in self.config.carried_forfeits:
            seat = self.seats[f.seat]
            if self.record.forfeit_of(f.seat) is None:
                self.forfeit(seat, BotFault(f.reason, f.message), f.decision)

    def replay_prefix(self, n: int) -> bool:
        """Re-apply recorded decision ``n`` of a fork's prefix; False once the prefix is over."""
        if n >= len(self.config.prefix):
            return False
        old = self.config.prefix[n]
        state = self.state
        if state.to_move() != old.seat:
            raise MatchSetupError(f"the record does not replay: decision {n} is seat {old.seat}'s "
                                  f"in the record but seat {state.to_move()}'s in the engine")
        if not old.forced:
            self._charge(self.seats[old.seat], old.wall_ms)
        self.record._choices.append(_choice_index(state, [], old.option))
        secret = state.option_audience(old.option)
        events = state.apply(old.option)
        decision = Decision(n, old.seat, old.option, old.wall_ms, old.cpu_ms, old.comment,
                            old.forced, events, None if secret is None else list(secret),
                            audiences(events))
        self.record.decisions.append(decision)
        self.emit(live_decision(self.config.match_id, decision, comments=self.config.live_comments))
        return True

    # --- the loop --------------------------------------------------------------------------------
    def play(self) -> None:
        state = self.state
        decisions = self.record.decisions
        match_id = self.config.match_id
        while (seat_index := state.to_move()) is not None:
            n = len(decisions)
            if self.replay_prefix(n):
                continue
            seat = self.seats[seat_index]
            decision_ms = (seat.tc or self.tc).decision_ms
            option_id, comment, wall_ms, cpu_ms, forced = None, "", 0.0, None, True
            options: list = []
            if seat.client is not None:
                options = state.legal_options()
                request = bot_pb2.ActRequest(
                    match_id=match_id,
                    seat=seat_index,
                    decision=n,
                    observation_json=orjson.dumps(state.observation(seat_index)).decode(),
                    options=[bot_pb2.Option(id=o.id, label=o.label) for o in options],
                    time_left_ms=int(decision_ms + seat.bank_ms),
                    bank_left_ms=int(seat.bank_ms),
                    prompt=state.decision_prompt(),
                ).SerializeToString()
                allowed_ms = decision_ms + seat.bank_ms
                # On a busy host the window is measured, so that time the bot spent waiting for
                # a CPU is not charged to it, and the call may run past the allowed time up to
                # a hard cap (referee/fair_clock.py; a pread per thread of the bot).
                mark = seat.client.mark_waits() if HOST_LOAD.busy() else None
                call_ms = allowed_ms * (1.0 if mark is None else DECISION_CAP_FACTOR)
                # Every other seat is stopped before this one runs: a freeze still pending from
                # its own reply (referee/off_turn.py spares a seat asked again at once) is made
                # now, so no opponent takes CPU from the start of this seat's thinking.
                for other in self.seats:
                    if other is not seat and other.client is not None:
                        _freeze(other.client)
                process = seat.client.process
                if process is not None:
                    process.thaw()
                t0 = time.perf_counter()
                try:
                    reply = seat.client.act(request, call_ms / 1000.0)
                    fault = None
                except BotFault as exc:
                    reply, fault = None, exc
                wall_ms = (time.perf_counter() - t0) * 1000.0
                if process is not None:
                    process.freeze_soon()  # unless asked again at once (referee/off_turn.py)
                cpu_ms = self._cpu_since_last(seat)
                own_ms = wall_ms
                if mark is not None and wall_ms > decision_ms:
                    own_ms = own_time_ms(wall_ms, cpu_ms, seat.client.waited_ms(mark))
                if fault is not None and fault.code == "timeout":
                    if mark is not None and own_ms < allowed_ms:  # cut at the cap: host's fault
                        fault = self.void(seat_index, n, (
                            f"no answer in {wall_ms:.0f} ms, but the host kept the bot waiting "
                            f"for a CPU: its own time was {own_ms:.0f} ms of {allowed_ms:.0f} ms"))
                    else:
                        fault = BotFault("timeout", f"no answer within {allowed_ms:.0f} ms"
                                         + ("" if own_ms == wall_ms else
                                            f" of its own time ({wall_ms:.0f} ms in all)"))
                self._charge(seat, wall_ms, own_ms)
                if fault is not None and fault.code in ("timeout", VOID_LIMIT):
                    seat.bank_ms = min(seat.bank_ms, 0.0)  # it ran out: nothing is left
                    seat.totals.bank_left_ms = 0.0
                if fault is None and seat.bank_ms < 0:
                    fault = BotFault("timeout", f"answered after {wall_ms:.0f} ms"
                                     + ("" if own_ms == wall_ms else f" ({own_ms:.0f} ms its own)")
                                     + f"; allowed {decision_ms} ms plus the bank")
                if fault is None:
                    fault = seat.client.check_health()
                if fault is None:
                    comment = reply.comment[:COMMENT_LIMIT]
                    if any(o.id == reply.option_id for o in options):
                        option_id, forced = reply.option_id, False
                    else:
                        fault = BotFault("illegal_option",
                                         f"answered {reply.option_id[:80]!r}, which is not legal now")
                if fault is not None:
                    self.forfeit(seat, fault, n)
            if option_id is None:
                option_id = state.fallback_option()
            label = next((o.label for o in options if o.id == option_id), None) if not forced else None
            self.record._choices.append(_choice_index(state, options, option_id))
            secret = state.option_audience(option_id)
            events = state.apply(option_id)
            decision = Decision(n, seat_index, option_id, round(wall_ms, 3),
                                None if cpu_ms is None else round(cpu_ms, 1),
                                comment, forced, events,
                                None if secret is None else list(secret), audiences(events))
            decisions.append(decision)
            if self.on_event is not None:
                self.on_event(live_decision(match_id, decision, label, self.config.live_comments))
            if self.on_view is not None:
                self.view(force=state.is_over())

    def void(self, seat: int, decision: int, message: str, log_tail: str = "") -> BotFault:
        """A limit reached at its hard cap while the host kept ``seat``'s bot waiting: the
        match is void (raises :class:`HostOverloaded`) — unless earlier tries of it were
        already void at this seat's decisions (``MatchConfig.earlier_voids``) as often as
        :data:`VOIDS_PER_SEAT` allows: then the seat's ``void_limit`` fault is returned, and
        the match goes on without it. A bot that can make its own decisions look host-starved
        gets one replay, not a replay whenever it is losing."""
        earlier = self.config.earlier_voids.get(seat, 0)
        if earlier + 1 < VOIDS_PER_SEAT:
            raise HostOverloaded(seat, decision, message)
        return BotFault(VOID_LIMIT, f"the match was void {earlier} time(s) before at this bot's "
                        f"decisions, and would be again at decision {decision}: {message}", log_tail)

    def _charge(self, seat: _Seat, wall_ms: float, own_ms: float | None = None) -> None:
        """Take a slow decision's excess from the seat's bank: the excess of the bot's own
        time (``own_ms``: the wall less its waits for a CPU, never less than its CPU; see
        :mod:`referee.fair_clock`), the wall when that was not measured."""
        totals = seat.totals
        totals.decisions += 1
        totals.time_used_ms += wall_ms
        over = (wall_ms if own_ms is None else own_ms) - (seat.tc or self.tc).decision_ms
        if over > 0:
            seat.bank_ms -= over
        totals.bank_left_ms = max(0.0, seat.bank_ms)

    def _cpu_since_last(self, seat: _Seat) -> float | None:
        now = seat.client.cpu_ms()
        if now is None or seat.last_cpu is None:
            seat.last_cpu = now
            return None
        used = now - seat.last_cpu
        seat.last_cpu = now
        seat.totals.cpu_ms = (seat.totals.cpu_ms or 0.0) + used
        return used

    def forfeit(self, seat: _Seat, fault: BotFault, n: int) -> None:
        """The seat is out: record why, bench its bot, let the fallback play it from now on.

        The benched bot stays frozen (a timed-out bot may still be computing) and hears its
        MatchEnd at the real end like every seat; it is never seated again (see close_all)."""
        if self.record.forfeit_of(seat.index) is not None:
            return
        forfeit = Forfeit(seat.index, fault.code, fault.message, n, fault.log_tail[-4000:])
        self.record.forfeits.append(forfeit)
        client, seat.client = seat.client, None
        if client is not None:
            if not forfeit.log_tail:
                forfeit.log_tail = client.log_tail()[-4000:]
            seat.benched = client
            _freeze(client)
        self.emit({"type": "forfeit", "match_id": self.config.match_id, "seat": seat.index,
                   "reason": fault.code, "message": fault.message, "decision": n})

    # --- the end ----------------------------------------------------------------------------------
    def finish(self) -> None:
        result = self.state.result()
        forfeited = {f.seat for f in self.record.forfeits}
        ranks = final_ranks(list(result.ranks), forfeited, result.details.get("automaton_rank"))
        self.record.result = {
            "scores": list(result.scores),
            "ranks": ranks,
            "engine_ranks": list(result.ranks),
            "details": result.details,
        }
        self.end_every_seat(list(result.scores), ranks)
        self.record.totals = [s.totals for s in self.seats]
        self.record.ended_at = _now()
        self.emit({"type": "end", "match_id": self.config.match_id, "result": self.record.result,
                   "forfeits": [f.public() for f in self.record.forfeits]})
        self.finished = True

    def end_every_seat(self, scores: list[float], ranks: list[int]) -> None:
        """Send MatchEnd exactly once to every seat whose bot is still there (playing or
        benched after a forfeit), all at once, with the seat, every score and rank, and the
        seat's fault. A seat whose bot is gone (crashed, unreachable) cannot hear it; that
        attempt fails fast and changes nothing."""
        futures = []
        for seat in self.seats:
            client = seat.client or seat.benched
            if client is None:
                continue
            forfeit = self.record.forfeit_of(seat.index)
            msg = bot_pb2.MatchEnd(match_id=self.config.match_id, seat=seat.index, scores=scores,
                                   ranks=ranks)
            if forfeit is not None:
                msg.forfeit_reason = f"{forfeit.reason}: {forfeit.message}"
                msg.fault = proto_number(forfeit.reason)
                msg.fault_decision = forfeit.decision
            if client.process is not None:
                client.process.thaw()  # frozen off turn (benched too): it must hear its MatchEnd
            try:
                future = client.end_match_future(msg, 1.0 if forfeit is None else 0.5)
            except Exception:  # noqa: BLE001 - a closed channel: this seat cannot hear it
                continue
            futures.append((client, future))
        for client, fut in futures:
            try:
                fut.result()
                self.acked.add(id(client))
            except Exception:  # noqa: BLE001 - the match is decided; a bot's ack is a courtesy
                pass

    def close_all(self) -> None:
        """Kill every bot; with a pool, give back those that saw a normal end without fault
        (the others — forfeited, no ack, the match broken off — are closed all the same)."""
        pool = self.config.pool
        seated = {id(s.client) for s in self.seats if s.client is not None}
        for client in self.clients:
            try:
                if pool is None:
                    client.close()
                elif self.finished and id(client) in seated and id(client) in self.acked:
                    pool.give_back(client)
                else:
                    pool.discard(client)
            except Exception:  # noqa: BLE001 - keep closing the others
                pass
        if not self.record.ended_at:
            self.record.totals = [s.totals for s in self.seats]
            self.record.ended_at = _now()


def _freeze(client: BotClient) -> None:
    """Stop a hosted seat's sandbox while it is not on turn (a remote seat runs elsewhere):
    it cannot take CPU from the seat that thinks. A sandbox that cannot be stopped is killed
    (:meth:`~referee.sandbox.BotProcess.freeze`), and its next call fails as a crash."""
    if client.process is not None:
        client.process.freeze()


def live_decision(
    match_id: str, decision: Decision, label: str | None = None, comments: bool = False
) -> dict[str, Any]:
    """The live event of one decision: what a spectator (or an opponent) may see while the
    match runs. A private choice shows neither its option id, its ``label`` nor the bot's
    comment (a bot may name its card there); lines with an audience are left out.

    Nor does any decision show its wall or CPU time, nor — unless ``comments``
    (``MatchConfig.live_comments``) — its comment: every watcher gets these events at once, an
    entrant's own processes included, so 200 characters of comment, or a time chosen to the
    millisecond, would let colluding seats talk while they play. The choice itself is the one
    channel left (docs/referee.md). The record keeps everything."""
    private = decision.option_audience is not None
    return {
        "type": "decision", "match_id": match_id, "n": decision.n, "seat": decision.seat,
        "option": None if private else decision.option, "private_choice": private,
        "label": None if private else label,
        "comment": decision.comment if comments and not private else "", "forced": decision.forced,
        "events": public_lines(decision.events),
    }
