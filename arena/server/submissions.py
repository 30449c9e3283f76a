"""Bot submissions: store an upload as a new version, qualify it, activate it or say why not.

Order of work, so a refused call leaves nothing half-written: the request and the whole archive
are checked first (nothing touched yet); then one transaction creates the bot (if new) and the
submission row and unpacks the files into the version's folder; a failure before the commit
removes the folder and rolls the rows back. Qualification runs afterwards in a background
thread and ends in one more transaction: a ``BotVersion`` (which the scheduler then picks) or a
refusal with its reason. Submissions still qualifying when the server stopped are qualified
again when it starts.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import shutil
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena import qualification
from arena.bots import register_version
from arena.db import Bot, BotVersion, session_scope, utcnow
from arena.db.accounts import QUALIFIED, QUALIFYING, REFUSED, Submission, User
from arena.server.config import ServerConfig
from arena.server.errors import ERROR_DOMAIN, ApiError, denied, invalid, not_found
from arena.uploads import UnsafeArchive, read_archive, write_bot
from referee import registry
from referee.faults import SERVER_ERROR

log = logging.getLogger("arena.server.submissions")


def unsafe_archive(exc: UnsafeArchive) -> ApiError:
    """INVALID_ARGUMENT with the rule in the message and, machine-readable, an ErrorInfo
    (reason UNSAFE_ARCHIVE, metadata kind=<rule>) and a BadRequest naming the field."""
    message = f"archive refused ({exc.kind}): {exc}"
    info = error_details_pb2.ErrorInfo(reason="UNSAFE_ARCHIVE", domain=ERROR_DOMAIN, metadata={"kind": exc.kind})
    bad = error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field="archive", description=message),
    ])
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message, (info, bad))

BOT_NAME = re.compile(r"^[A-Za-z0-9_-]{3,40}$")
ADDRESS = re.compile(r"^(?:tls://)?(?:[A-Za-z0-9.\-]{1,253}|\[[0-9A-Fa-f:.]+\]):(?P<port>\d{1,5})$")


def check_bot_name(name: str) -> str:
    if not BOT_NAME.match(name or ""):
        raise invalid(f"bot name {name[:50]!r} is not valid: use 3-40 letters, digits, '_' or '-'")
    return name


def check_game(game: str) -> str:
    if not game:
        raise invalid(f"no game given; known games: {', '.join(registry.game_names())}")
    try:
        registry.get_spec(game)  # ConfigError (-> INVALID_ARGUMENT) names the known games
    except ImportError as exc:
        raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, f"the {game} engine is not available on this server: {exc}") from None
    return game


def check_address(address: str) -> str:
    m = ADDRESS.match(address or "")
    if not m or not 0 < int(m.group("port")) < 65536:
        raise invalid(f"bot address {address[:80]!r} is not host:port or tls://host:port (e.g. tls://bots.example.org:50061)")
    return address


def playing_version_id(session: Session, bot: Bot) -> int | None:
    """The version the scheduler plays: the bot's newest BotVersion (qualified by construction)."""
    return session.scalar(
        select(BotVersion.id).where(BotVersion.bot_id == bot.id).order_by(BotVersion.number.desc()).limit(1)
    )


class Submissions:
    """Owns the qualification thread pool; one per server."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.url: str | None = None
        self._pool = ThreadPoolExecutor(max_workers=config.qualification_workers, thread_name_prefix="qualify")
        self._futures: dict[int, Future[None]] = {}

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # --- storing ------------------------------------------------------------------------------
    def submit_hosted(self, user: User, name: str, game: str, archive: bytes, wait: bool) -> int:
        """Store an archive as a new version; returns the submission id."""
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
            write_bot(members, dest)
            return str(dest.resolve())

        return self._store(user, name, game, "hosted", digest, place, wait)

    def submit_remote(self, user: User, name: str, game: str, address: str, wait: bool) -> int:
        check_bot_name(name)
        check_game(game)
        check_address(address)
        digest = hashlib.sha256(address.encode()).hexdigest()
        return self._store(user, name, game, "remote", digest, lambda _b, _n: address, wait)

    def submit_dialin(self, user: User, name: str, game: str, source: str) -> int:
        """A bot that dials in (``arena.dialin``): qualified over its own stream, in the
        background (the stream must be open to play the qualification match)."""
        check_bot_name(name)
        check_game(game)
        digest = hashlib.sha256(source.encode()).hexdigest()
        return self._store(user, name, game, "remote", digest, lambda _b, _n: source, False)

    def _store(
        self, user: User, name: str, game: str, kind: str, digest: str,
        place: Callable[[int, int], str], wait: bool,
    ) -> int:
        written: Path | None = None
        try:
            with session_scope(self.url) as s:
                bot = s.scalar(select(Bot).where(Bot.name == name, Bot.game == game))
                if bot is not None and bot.owner != user.name:
                    raise denied(f"bot {name!r} for {game} belongs to another user; pick another name")
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
                sub = Submission(bot_id=bot.id, number=number, kind=kind, source=source, digest=digest, status=QUALIFYING)
                s.add(sub)
                s.flush()
                sub_id = sub.id
        except BaseException:
            if written is not None:
                shutil.rmtree(written, ignore_errors=True)
            raise
        future = self.start_qualification(sub_id)
        if wait:
            try:
                future.result(timeout=self.config.qualification_wait_s)
            except FutureTimeout:
                pass  # the reply says QUALIFYING; GetVersionStatus tells the rest later
        return sub_id

    # --- qualifying -------------------------------------------------------------------------------
    def start_qualification(self, sub_id: int) -> Future[None]:
        future = self._pool.submit(self._qualify, sub_id)
        self._futures[sub_id] = future
        future.add_done_callback(lambda _f: self._futures.pop(sub_id, None))
        return future

    def resume_pending(self) -> int:
        """Qualify again whatever was still qualifying when the server last stopped."""
        with session_scope(self.url) as s:
            ids = list(s.scalars(select(Submission.id).where(Submission.status == QUALIFYING)))
        for sub_id in ids:
            self.start_qualification(sub_id)
        return len(ids)

    def _qualify(self, sub_id: int) -> None:
        with session_scope(self.url) as s:
            sub = s.get(Submission, sub_id)
            if sub is None or sub.status != QUALIFYING:
                return
            bot = s.get(Bot, sub.bot_id)
            game, source, label = bot.game, sub.source, f"{bot.name} v{sub.number}"
        try:
            outcome = qualification.qualify(
                game, source, name=label, seed=secrets.randbits(31),
                sandbox=self.config.sandbox, time_control=self.config.qualification_time_control,
                startup_ms=self.config.qualification_startup_ms,
            )
        except Exception as exc:  # noqa: BLE001 - recorded as the refusal; the log has the rest
            log.exception("qualification of submission %s failed", sub_id)
            outcome = qualification.Outcome(False, "", SERVER_ERROR, f"qualification failed on the server: {exc}")
        with session_scope(self.url) as s:
            sub = s.get(Submission, sub_id)
            bot = s.get(Bot, sub.bot_id)
            sub.match_id = outcome.match_id or None
            sub.record = outcome.record
            sub.finished_at = utcnow()
            if outcome.passed:
                before = playing_version_id(s, bot)
                version = register_version(s, bot.game, sub.source, name=bot.name, owner=bot.owner)
                if version.id != before:  # new (a remote address registered again is not)
                    version.number = sub.number
                sub.status = QUALIFIED
                sub.bot_version_id = version.id
                bot.active = True
            else:
                sub.status = REFUSED
                sub.refusal_kind = outcome.kind or SERVER_ERROR
                sub.refusal_message = outcome.message
                sub.log_tail = outcome.log_tail

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
