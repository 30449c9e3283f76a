"""Bot submissions: store an upload as a new version, qualify it, activate it or say why not.

Order of work, so a refused call leaves nothing half-written: the request and the whole archive
are checked first (nothing touched yet); then one transaction creates the bot (if new) and the
submission row and unpacks the files into the version's folder; a failure before the commit
removes the folder and rolls the rows back. Qualification runs afterwards and ends in one more
transaction: a ``BotVersion`` (which the scheduler then picks) or a refusal with its reason.

With a broker it runs on the Celery workers (``arena.workers.tasks.qualify_submission``): the sandbox
needs root (a uid and cgroup per bot) and the workers keep it, so the API server runs as an
unprivileged user. A message that cannot be sent (broker down) is sent again every
:data:`RESEND_EVERY` seconds until it goes through, and one that Redis lost (a restart without
persistence) is sent again once the submission has been qualifying for :data:`LOST_AFTER`
seconds with no message of it in Redis (neither queued nor held by a worker). Without a broker it runs in a thread pool of
this server. Submissions still qualifying when the server starts are sent (or run) again; the
verdict is recorded once whichever run finishes first (:func:`arena.intake.qualification.record_verdict`).
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.db import Bot, BotVersion, session_scope, utcnow
from arena.db.accounts import CLIENT_CHARS, QUALIFYING, Submission, User
from arena.db.models import SprtTest
from arena.evaluation import sprt
from arena.evaluation.sprt import SprtSettings
from arena.intake import freeze, qualification, sprt_runner
from arena.intake.uploads import UnsafeArchive, read_archive, write_bot
from arena.quoting import shorten
from arena.server.config import ServerConfig
from arena.server.errors import ERROR_DOMAIN, ApiError, denied, invalid, not_found
from arena.workers.celery_app import has_broker
from referee import registry

log = logging.getLogger("arena.server.submissions")


def unsafe_archive(exc: UnsafeArchive) -> ApiError:
    """INVALID_ARGUMENT with the rule in the message and, machine-readable, an ErrorInfo
    (reason UNSAFE_ARCHIVE, metadata kind=<rule>) and a BadRequest naming the field."""
    message = f"archive refused ({exc.kind}): {shorten(str(exc), 400)}"
    info = error_details_pb2.ErrorInfo(reason="UNSAFE_ARCHIVE", domain=ERROR_DOMAIN, metadata={"kind": exc.kind})
    bad = error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field="archive", description=message),
    ])
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message, (info, bad))

#: Names and addresses are matched with fullmatch: ``$`` also matches before a final newline.
BOT_NAME = re.compile(r"[A-Za-z0-9_-]{3,40}")
#: Seconds between attempts to send qualification messages the broker did not take.
RESEND_EVERY = 5.0
#: A submission qualifying this long (and as long since this server last sent it) with no
#: message in Redis is sent again: its message was lost.
LOST_AFTER = float(os.environ.get("ARENA_QUALIFY_LOST_AFTER", "60"))
ADDRESS = re.compile(r"(?:tls://)?(?:[A-Za-z0-9.\-]{1,253}|\[[0-9A-Fa-f:.]+\]):(?P<port>\d{1,5})")


def check_bot_name(name: str) -> str:
    if not BOT_NAME.fullmatch(name or ""):
        raise invalid(f"bot name {shorten(name)!r} is not valid: use 3-40 letters, digits, '_' or '-'")
    return name


def check_game(game: str) -> str:
    if not game:
        raise invalid(f"no game given; known games: {', '.join(registry.game_names())}")
    if game not in registry.game_names():  # before the registry's own error, which quotes all of it
        raise invalid(f"unknown game {shorten(game)!r}; known games: {', '.join(registry.game_names())}")
    try:
        registry.get_spec(game)  # ConfigError (-> INVALID_ARGUMENT) names the known games
    except ImportError as exc:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"the {game} engine is not available on this server: {exc}") from None
    return game


def check_address(address: str) -> str:
    m = ADDRESS.fullmatch(address or "")
    if not m or not 0 < int(m.group("port")) < 65536:
        raise invalid(f"bot address {shorten(address)!r} is not host:port or tls://host:port (e.g. tls://bots.example.org:50061)")
    return address


def playing_version_id(session: Session, bot: Bot) -> int | None:
    """The version the scheduler plays: the bot's newest BotVersion (qualified by construction)
    that no SPRT holds back."""
    return session.scalar(
        select(BotVersion.id).where(BotVersion.bot_id == bot.id, BotVersion.held.is_(False))
        .order_by(BotVersion.number.desc()).limit(1)
    )


class Submissions:
    """Hands qualifications out (to the workers, or to this server's thread pool); one per server."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.url: str | None = None
        self._pool = ThreadPoolExecutor(max_workers=config.qualification_workers, thread_name_prefix="qualify")
        self._futures: dict[int, Future[str]] = {}
        self._unsent: set[int] = set()
        self._sent_at: dict[int, float] = {}  # monotonic time of this server's last send
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._resender: threading.Thread | None = None
        self._sprt_pool = ThreadPoolExecutor(max_workers=config.sprt_workers, thread_name_prefix="sprt")
        #: Called after a qualification changed which bots are active (the leaderboard cache).
        self.on_bots_changed: Callable[[], None] = lambda: None

    @property
    def settings(self) -> qualification.Settings:
        tc = self.config.qualification_time_control
        return qualification.Settings(
            sandbox=self.config.sandbox, decision_ms=tc.decision_ms if tc else 0,
            bank_ms=tc.bank_ms if tc else 0, startup_ms=self.config.qualification_startup_ms,
            sprt=asdict(self.config.sprt) if self.config.sprt is not None else None,
        )

    def close(self) -> None:
        self._stopped.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._sprt_pool.shutdown(wait=False, cancel_futures=True)

    # --- storing ------------------------------------------------------------------------------
    def submit_hosted(self, user: User, name: str, game: str, archive: bytes, wait: bool,
                      sprt: SprtSettings | None = None, client: str | None = None) -> int:
        """Store an archive as a new version; returns the submission id. ``client``: the cap key
        of the caller's address (kept with the submission for the per-client pending cap)."""
        check_bot_name(name)
        check_game(game)
        try:
            members = read_archive(archive, self.config.limits)
        except UnsafeArchive as exc:
            raise unsafe_archive(exc) from None
        digest = hashlib.sha256(archive).hexdigest()

        def place(bot_id: int, number: int) -> str:
            dest = self.config.bots_dir / str(bot_id) / f"v{number}"
            if dest.exists():  # left by a transaction that rolled back: no row refers to it
                shutil.rmtree(dest)
            try:
                write_bot(members, dest)
            except UnsafeArchive as exc:  # a name this file system refuses (read_archive checks most)
                raise unsafe_archive(exc) from None
            return str(dest.resolve())

        return self._store(user, name, game, "hosted", digest, place, wait, sprt, client)

    def submit_remote(self, user: User, name: str, game: str, address: str, wait: bool,
                      sprt: SprtSettings | None = None, client: str | None = None) -> int:
        check_bot_name(name)
        check_game(game)
        check_address(address)
        digest = hashlib.sha256(address.encode()).hexdigest()
        return self._store(user, name, game, "remote", digest, lambda _b, _n: address, wait, sprt, client)

    def submit_dialin(self, user: User, name: str, game: str, source: str, client: str | None = None) -> int:
        """A bot that dials in (``referee.dialin_client``): qualified over its own stream, in the
        background (the stream must be open to play the qualification match)."""
        check_bot_name(name)
        check_game(game)
        digest = hashlib.sha256(source.encode()).hexdigest()
        return self._store(user, name, game, "remote", digest, lambda _b, _n: source, False, client=client)

    def _store(
        self, user: User, name: str, game: str, kind: str, digest: str,
        place: Callable[[int, int], str], wait: bool, sprt: SprtSettings | None = None,
        client: str | None = None,
    ) -> int:
        if sprt is not None:
            try:
                sprt.check()
            except ValueError as exc:
                raise invalid(f"SPRT settings refused: {exc}") from None
        written: Path | None = None
        try:
            with session_scope(self.url) as s:
                bot = s.scalar(select(Bot).where(Bot.name == name, Bot.game == game))
                if bot is not None and bot.owner != user.name:
                    raise denied(f"bot {name!r} for {game} belongs to another user; pick another name")
                if bot is not None:
                    closed = freeze.closing_season(s, bot.id)
                    if closed is not None:
                        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, freeze.refusal(closed, name))
                if bot is None:
                    # Inactive until a version qualifies: the scheduler never sees a bot with no
                    # playable version.
                    bot = Bot(owner=user.name, name=name, game=game, active=False)
                    s.add(bot)
                    s.flush()
                last_sub = s.scalar(select(func.max(Submission.number)).where(Submission.bot_id == bot.id)) or 0
                last_ver = s.scalar(select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot.id)) or 0
                number = max(last_sub, last_ver) + 1
                source = place(bot.id, number)
                if kind == "hosted":
                    written = Path(source)
                sub = Submission(bot_id=bot.id, number=number, kind=kind, source=source, digest=digest, status=QUALIFYING,
                                 sprt_settings=asdict(sprt) if sprt is not None else None,
                                 client=client[:CLIENT_CHARS] if client else None)
                s.add(sub)
                s.flush()
                sub_id = sub.id
        except BaseException:
            if written is not None:
                shutil.rmtree(written, ignore_errors=True)
            raise
        self.start_qualification(sub_id)
        if wait:  # until decided; past the limit the reply says QUALIFYING (GetVersionStatus later)
            self.wait_decided(sub_id, self.config.qualification_wait_s)
        return sub_id

    # --- qualifying -------------------------------------------------------------------------------
    def start_qualification(self, sub_id: int) -> None:
        if has_broker():
            self._send(sub_id)
            return
        future = self._pool.submit(qualification.qualify_submission, sub_id, self.settings, self.url)
        self._futures[sub_id] = future
        future.add_done_callback(lambda _f: self._qualified_here(sub_id))

    def _qualified_here(self, sub_id: int) -> None:
        """An in-process qualification ended: forget it, let the leaderboard cache know that
        the active bots may have changed (workers' verdicts reach it through its token), and
        play the SPRT its verdict started, if any (a worker plays its own)."""
        self._futures.pop(sub_id, None)
        self.on_bots_changed()
        try:
            test_id = qualification.running_sprt_of(sub_id, self.url)
        except Exception:  # noqa: BLE001 - database trouble: resume_pending starts it later
            log.warning("could not look for the SPRT of submission %s", sub_id, exc_info=True)
            return
        if test_id is not None:
            self.start_sprt(test_id)

    def _send(self, sub_id: int) -> bool:
        """Send the qualification to the workers; remembered and re-sent if the broker is down."""
        from arena.workers import tasks

        self.start_resender()
        task_id = f"{tasks.QUALIFY_TASK_PREFIX}{sub_id}-{uuid.uuid4().hex[:8]}"  # seen in Redis by id
        try:
            tasks.qualify_submission.apply_async(args=[sub_id, self.settings.to_dict()], task_id=task_id)
        except Exception as exc:  # noqa: BLE001 - kombu's connection errors vary by transport
            log.warning("qualification of submission %s not sent yet (%s); retrying every %.0f s",
                        sub_id, " ".join(str(exc).split()), RESEND_EVERY)
            with self._lock:
                self._unsent.add(sub_id)
            return False
        with self._lock:
            self._unsent.discard(sub_id)
            self._sent_at[sub_id] = time.monotonic()
        return True

    def start_resender(self) -> None:
        """The thread that re-sends unsent and lost qualification messages (broker only)."""
        with self._lock:
            if self._resender is None:
                self._resender = threading.Thread(target=self._resend_loop, daemon=True, name="qualify-resend")
                self._resender.start()

    def _resend_loop(self) -> None:
        last_lost_check = time.monotonic()
        while not self._stopped.wait(RESEND_EVERY):
            with self._lock:
                pending = sorted(self._unsent)
            for sub_id in pending:
                if not self._send(sub_id):
                    break  # still down: the rest wait for the next round
            if time.monotonic() - last_lost_check >= min(LOST_AFTER, 30.0):
                last_lost_check = time.monotonic()
                try:
                    self.resend_lost()
                except Exception:  # noqa: BLE001 - database or broker trouble: next round
                    log.warning("could not look for lost qualification messages", exc_info=True)

    def resend_lost(self) -> list[int]:
        """Send again the qualifications whose message Redis no longer holds; returns their ids."""
        from arena.workers import tasks

        cutoff = utcnow() - timedelta(seconds=LOST_AFTER)
        with session_scope(self.url) as s:
            waiting = list(s.scalars(select(Submission.id).where(
                Submission.status == QUALIFYING, Submission.created_at < cutoff)))
        if not waiting:
            return []
        held = tasks.submissions_in_broker()
        if held is None:
            return []
        now = time.monotonic()
        with self._lock:
            lost = [i for i in waiting if i not in held and i not in self._unsent
                    and now - self._sent_at.get(i, -LOST_AFTER) >= LOST_AFTER]
        for sub_id in lost:
            log.warning("qualification message of submission %s was lost; sending it again", sub_id)
            self._send(sub_id)
        return lost

    def wait_decided(self, sub_id: int, timeout: float) -> bool:
        """Block until the submission is qualified or refused (True) or ``timeout`` passes."""
        future = self._futures.get(sub_id)
        deadline = time.monotonic() + timeout
        while True:
            if future is None or future.done():
                with session_scope(self.url) as s:
                    if s.scalar(select(Submission.status).where(Submission.id == sub_id)) != QUALIFYING:
                        return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if future is not None and not future.done():
                try:
                    future.result(timeout=remaining)
                except Exception:  # noqa: BLE001 - any end of the run: look at the row
                    pass
            else:
                time.sleep(min(0.2, remaining))

    def resume_pending(self) -> int:
        """Qualify again whatever was still qualifying when the server last stopped (with a
        broker: whatever has no message in Redis), and start watching for lost messages."""
        with session_scope(self.url) as s:
            ids = list(s.scalars(select(Submission.id).where(Submission.status == QUALIFYING)))
        if has_broker():
            from arena.workers import tasks

            self.start_resender()
            held = tasks.submissions_in_broker()  # None (cannot tell): send; decided once anyway
            ids = [i for i in ids if held is None or i not in held]
        for sub_id in ids:
            self.start_qualification(sub_id)
        with session_scope(self.url) as s:
            tests = list(s.scalars(select(SprtTest.id).where(SprtTest.status == sprt.RUNNING)))
        for test_id in tests:
            self.start_sprt(test_id)
        return len(ids)

    def start_sprt(self, test_id: int) -> Future[str]:
        """Play SPRT ``test_id`` in the background (its row shows the progress); its verdict may
        change which version plays, so the leaderboard cache hears of the end."""
        seeds = None if self.config.sprt_seed is None else itertools.count(self.config.sprt_seed)
        future = self._sprt_pool.submit(
            sprt_runner.run_test, self.url, test_id, sandbox=self.config.sandbox,
            time_control=self.config.sprt_time_control, startup_ms=self.config.qualification_startup_ms,
            seeds=seeds,
        )
        future.add_done_callback(lambda _f: self.on_bots_changed())
        return future

    # --- reading ------------------------------------------------------------------------------------
    def find_submission(self, session: Session, bot_id: int, number: int) -> Submission:
        query = select(Submission).where(Submission.bot_id == bot_id)
        query = query.where(Submission.number == number) if number else query.order_by(Submission.number.desc()).limit(1)
        sub = session.scalar(query)
        if sub is None:
            what = f"version {number}" if number else "any version"
            raise not_found(f"bot {bot_id} has no {what}")
        return sub


def get_owned_bot(session: Session, bot_id: int, user: User) -> Bot:
    bot = get_bot(session, bot_id)
    if bot.owner != user.name:
        raise denied(f"bot {bot_id} ({bot.name!r}) belongs to another user; only its owner may change it")
    return bot


def get_bot(session: Session, bot_id: int) -> Bot:
    if bot_id <= 0:
        raise invalid("bot_id must be a positive bot id")
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise not_found(f"no bot with id {bot_id}")
    return bot


def sprt_tests(session: Session, bot_id: int) -> list[SprtTest]:
    """Every SPRT of a bot's versions, newest first."""
    return list(session.scalars(select(SprtTest).where(SprtTest.bot_id == bot_id).order_by(SprtTest.id.desc())))


def sprt_settings(request) -> SprtSettings | None:  # noqa: ANN001 - SubmitBot/RegisterRemoteBot request
    """The submitter's SPRT settings (zero fields: the defaults), or None to use the server's."""
    if not request.HasField("sprt"):
        return None
    given, default = request.sprt, SprtSettings()
    return SprtSettings(
        elo0=given.elo0 or default.elo0, elo1=given.elo1 or default.elo1,
        alpha=given.alpha or default.alpha, beta=given.beta or default.beta,
        max_pairs=given.max_pairs or default.max_pairs,
        replace="always" if given.replace_always else "accept", house=given.house,
    )
