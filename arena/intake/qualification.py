"""Qualification: a new bot version plays one short match against the random bot first.

Only a version that finishes that match without a fault (no crash, no overrun clock, no illegal
answer, no failed start) is activated. The point is to catch a broken upload before it wastes
tournament slots and drags opponents' ratings about, and to tell its author exactly why: the
fault kind, the referee's message and the tail of the bot's own stderr (its traceback).

The match is the game's smallest table with two seats when the game allows it (the candidate in
seat 0, random bots in the others), sandboxed like every hosted match.

Not the bot's fault: when the referee finds that a deadline passed because the host, not the
bot, was slow (the bot was kept waiting for a CPU: ``referee.match.HostOverloaded``, see
docs/referee.md "Whose time is it"), the match is void and is played again, up to
:data:`ATTEMPTS` matches in all with pauses of :data:`RETRY_PAUSES_S` between them (a busy
worker often is less busy a little later); after the last one the submission is refused as
``server_error`` with a message that says the server, not the bot, was at fault. Voids are
counted per seat across the attempts: a second one at the candidate's decisions is its
forfeit (``void_limit``, ``referee.match.VOIDS_PER_SEAT``) and refuses it, so a bot cannot
make its own slowness look like the host's and be played again until it gets lucky.

Where it runs: with a broker, on the Celery workers (``arena.workers.tasks.qualify_submission``), like
tournament matches — the sandbox gives every bot an unprivileged uid and cgroup of its own, which
only root can do, so only the workers keep root and the API server runs as an ordinary user.
Without a broker, in a thread of the server (``arena serve`` on one machine). Either way
:func:`qualify_submission` decides a submission at most once (a conditional UPDATE), so a
message delivered twice only costs a second match.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from arena.db import Bot, BotVersion, session_scope, utcnow
from arena.db.accounts import QUALIFIED, QUALIFYING, REFUSED, Submission
from arena.db.models import SprtTest
from arena.evaluation.sprt import RUNNING, SprtSettings
from arena.intake import freeze, sprt_runner
from arena.intake.bots import register_version
from arena.intake.table import RANDOM_BOT, table_for
from referee.engine import ConfigError, TimeControl
from referee.faults import REASONS, SERVER_ERROR
from referee.match import HostOverloaded, MatchConfig, SeatSpec, run_match
from referee.rng import match_seed

log = logging.getLogger("arena.intake.qualification")

LOG_TAIL_CHARS = 4000
#: Qualification matches voided by an overloaded host (HostOverloaded) are played again: this
#: many in all, after these pauses (the last one repeats).
ATTEMPTS = 3
RETRY_PAUSES_S: tuple[float, ...] = (5.0, 20.0)


@dataclass(frozen=True)
class Outcome:
    """How qualification went; ``kind``/``message``/``log_tail`` are empty when it passed."""

    passed: bool
    match_id: str
    kind: str = ""
    message: str = ""
    log_tail: str = ""
    record: dict[str, Any] | None = None


def qualify(
    game: str,
    source: str,
    *,
    name: str = "candidate",
    seed: int | None = None,  # None: a secret random one
    sandbox: bool = True,
    time_control: TimeControl | None = None,
    startup_ms: int = 10000,
    start_budget_ms: int = 2000,
    opponent: Path = RANDOM_BOT,
    attempts: int = ATTEMPTS,
    pauses_s: tuple[float, ...] = RETRY_PAUSES_S,
) -> Outcome:
    """Play the qualification match of ``source`` (a bot folder or host:port) for ``game``;
    a match the host voided (module docstring) is played again, up to ``attempts`` in all."""
    players, variant = table_for(game)
    seats = [SeatSpec(name, source)] + [SeatSpec(f"random-{i}", str(opponent)) for i in range(1, players)]
    attempts = max(1, attempts)
    voids: dict[int, int] = {}  # per seat: a second void at one seat's decisions is its forfeit
    for attempt in range(1, attempts + 1):
        config = MatchConfig(
            game=game, seats=seats, seed=match_seed() if seed is None else seed, variant=variant,
            time_control=time_control, sandbox=sandbox, startup_ms=startup_ms,
            start_budget_ms=start_budget_ms, earlier_voids=dict(voids),
        )
        try:
            record = run_match(config)
            break
        except HostOverloaded as exc:
            voids[exc.seat] = voids.get(exc.seat, 0) + 1
            log.warning("qualification match %s of %s (attempt %d of %d) was void: %s",
                        config.match_id, name, attempt, attempts, exc)
            if attempt == attempts:
                return Outcome(False, config.match_id, SERVER_ERROR, (
                    f"the server was too busy to judge the bot's clock fairly: {attempts} "
                    f"qualification match(es) were void (the last: {exc.message}); this says "
                    f"nothing about the bot: submit it again later"))
            time.sleep(pauses_s[min(attempt, len(pauses_s)) - 1] if pauses_s else 0.0)
        except ConfigError as exc:
            return Outcome(False, config.match_id, SERVER_ERROR, f"the qualification match could not start: {exc}")
        except Exception as exc:  # noqa: BLE001 - an engine or runner failure is not the bot's fault,
            # but the version cannot be activated without a clean match; the log has the traceback.
            log.exception("qualification match %s failed", config.match_id)
            return Outcome(False, config.match_id, SERVER_ERROR, f"the qualification match failed on the server: {exc}")
    data = record.to_dict()
    forfeit = record.forfeit_of(0)
    if forfeit is None:
        return Outcome(True, record.match_id, record=data)
    kind = forfeit.reason  # the refusal kind is the fault reason itself: one vocabulary
    why = REASONS.get(forfeit.reason, forfeit.reason)
    message = f"{why} (decision {forfeit.decision}): {forfeit.message}"
    return Outcome(False, record.match_id, kind, message, forfeit.log_tail[-LOG_TAIL_CHARS:], data)


@dataclass(frozen=True)
class Settings:
    """How the server wants its qualification matches played; travels in the task message, so a
    worker plays them exactly as the server that accepted the upload is configured."""

    sandbox: bool = True
    decision_ms: int = 0  # 0: the game's own time control
    bank_ms: int = 0
    startup_ms: int = 10000
    #: The server's default SPRT settings (``arena.evaluation.sprt.SprtSettings`` as a dict; None: no SPRT
    #: unless the submission asked for one): the test starts where the verdict is recorded.
    sprt: dict[str, Any] | None = None

    @property
    def time_control(self) -> TimeControl | None:
        return TimeControl(self.decision_ms, self.bank_ms) if self.decision_ms else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def qualify_submission(sub_id: int, settings: Settings, url: str | None = None) -> str:
    """Play the qualification match of stored submission ``sub_id`` and record the verdict.

    Returns ``qualified``, ``refused`` or ``skipped`` (already decided, or unknown). The
    database errors of the first read propagate (the caller retries the whole thing later).
    """
    with session_scope(url) as s:
        sub = s.get(Submission, sub_id)
        if sub is None or sub.status != QUALIFYING:
            return "skipped"
        bot = s.get(Bot, sub.bot_id)
        game, source, label = bot.game, sub.source, f"{bot.name} v{sub.number}"
    try:
        outcome = qualify(
            game, source, name=label, seed=match_seed(), sandbox=settings.sandbox,
            time_control=settings.time_control, startup_ms=settings.startup_ms,
        )
    except Exception as exc:  # noqa: BLE001 - recorded as the refusal; the log has the rest
        log.exception("qualification of submission %s failed", sub_id)
        outcome = Outcome(False, "", SERVER_ERROR, f"qualification failed on the server: {exc}")
    return record_verdict(sub_id, outcome, url, sprt_default=SprtSettings(**settings.sprt) if settings.sprt else None)


def record_verdict(sub_id: int, outcome: Outcome, url: str | None = None,
                   sprt_default: SprtSettings | None = None) -> str:
    """Store ``outcome`` for the submission unless another run already did (exactly once).

    A passing version with a predecessor on the ladder gets its SPRT row (status running) in
    the same transaction, with the submission's settings or ``sprt_default``: it is held back
    until the test is played (:func:`running_sprt_of` finds it for whoever plays it)."""
    with session_scope(url) as s:
        # The claim: only the run that sets finished_at decides (a duplicate run waits for the
        # row lock, then matches nothing).
        won = s.execute(
            update(Submission)
            .where(Submission.id == sub_id, Submission.status == QUALIFYING, Submission.finished_at.is_(None))
            .values(finished_at=utcnow())
            .execution_options(synchronize_session=False)
        ).rowcount
        if not won:
            return "skipped"
        sub = s.get(Submission, sub_id)
        bot = s.get(Bot, sub.bot_id)
        sub.match_id = outcome.match_id or None
        sub.record = outcome.record
        closed = freeze.closing_season(s, bot.id) if outcome.passed and bot.versions else None
        if closed is not None:  # stored before a season's deadline, judged after it: frozen out
            outcome = Outcome(False, outcome.match_id, SERVER_ERROR, freeze.refusal(closed, bot.name))
        if outcome.passed:
            before = _playing_version_id(s, bot.id)
            version = register_version(s, bot.game, sub.source, name=bot.name, owner=bot.owner)
            if version.id != before:  # new (a remote address registered again is not)
                version.number = sub.number
            sprt = SprtSettings(**sub.sprt_settings) if sub.sprt_settings else sprt_default
            if before is not None and version.id != before and sprt is not None:
                # The predecessor keeps playing until the test says otherwise.
                sprt_runner.start_test(s, bot, version, s.get(BotVersion, before), sprt)
            sub.status = QUALIFIED
            sub.bot_version_id = version.id
            bot.active = True
            return "qualified"
        sub.status = REFUSED
        sub.refusal_kind = outcome.kind or SERVER_ERROR
        sub.refusal_message = outcome.message
        sub.log_tail = outcome.log_tail
        return "refused"


def _playing_version_id(session: Any, bot_id: int) -> int | None:
    """The version that plays: the newest one no SPRT holds back."""
    return session.scalar(
        select(BotVersion.id).where(BotVersion.bot_id == bot_id, BotVersion.held.is_(False))
        .order_by(BotVersion.number.desc()).limit(1)
    )


def running_sprt_of(sub_id: int, url: str | None = None) -> int | None:
    """Id of the running SPRT of the version submission ``sub_id`` created (None if none)."""
    with session_scope(url) as s:
        return s.scalar(
            select(SprtTest.id).join(Submission, Submission.bot_version_id == SprtTest.candidate_version_id)
            .where(Submission.id == sub_id, SprtTest.status == RUNNING)
            .order_by(SprtTest.id.desc()).limit(1)
        )
