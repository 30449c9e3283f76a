"""The server's half of bots that dial in: the ``ConnectBot`` stream and the relay.

Everything here runs on the aio server's event loop, so a connected bot costs a coroutine, not
a thread. :class:`DialinHub` keeps, per dial-in source (``dialin://OWNER/GAME/NAME``), the one
live :class:`_Session` (a newer connection of the same bot replaces the older one). The relay —
``tabletop.bot.v1.Bot`` served on the Arena port, raw bytes in and out — turns each unary call
from a referee into a ``ConnectBotCall`` on that session's stream and waits for the answer
within the caller's deadline.

The referee's route is ``tabletop.arena.v1.DialinRelay/Relay``: one stream per seat of a match,
each call a message on it (a unary call to this aio server costs several times a message on an
open stream, and so did the relay). The unary ``tabletop.bot.v1.Bot`` relay stays for workers
of an earlier release.

A match is bound to the connection that answered its StartMatch (on the stream: the stream is
bound; unary: the session id travels back in trailing metadata and with every later call). If
that connection drops, every call still waiting and every later call of the match fails with
:data:`referee.dialin_client.DROPPED`, which the referee records as ``disconnected``; a reconnected bot is
served the *next* matches. See ``referee/dialin_client.py`` for who may call the relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import math
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from datetime import timedelta
from typing import Any

import grpc
from sqlalchemy import func, select

from arena.competition import dialin_presence as dialin
from arena.db import Bot, BotVersion, session_scope, utcnow
from arena.db.accounts import CLIENT_CHARS, QUALIFYING, REFUSED, Submission, User
from arena.server import accounts
from arena.server.errors import _status_of
from arena.server.streams import ClientAddresses, client_of
from arena.server.submissions import Submissions, check_bot_name, check_game
from referee import dialin_client
from referee._proto import arena_pb2 as pb
from referee.faults import REASONS, SERVER_ERROR

log = logging.getLogger("arena.server.dialin")

BOT_SERVICE = "tabletop.bot.v1.Bot"
RELAY_SERVICE = "tabletop.arena.v1.DialinRelay"
_METHODS = {
    "StartMatch": pb.CONNECT_BOT_METHOD_START_MATCH,
    "Act": pb.CONNECT_BOT_METHOD_ACT,
    "EndMatch": pb.CONNECT_BOT_METHOD_END_MATCH,
}
#: How long StartMatch waits for a bot that is reconnecting (never longer than its deadline).
CONNECT_GRACE_S = 5.0


class _Dropped(Exception):
    """The session's stream ended while a call waited for its answer."""


class _Refused(Exception):
    """A hello (or a stream) the hub turns down: ended with this status, logged in one line."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


#: Refusal kinds of a qualification played over the connection still open that reconnecting
#: the same bot cannot mend: its code must change (``unreachable`` included: the bot was
#: connected and did not answer StartMatch). Not: ``disconnected`` (its connection went) and
#: ``server_error`` (not the bot's doing), which are worth another try.
_BOT_FAULTS = frozenset(REASONS) - {"disconnected"}


class _Session:
    """One open ``ConnectBot`` stream. Calls are written to it by the relay handlers
    themselves (:meth:`send`), not handed to the stream's own task through a queue: that
    hand-over was a task switch on every decision.

    ``status`` is how the stream ends when the hub ends it (replaced, deactivated, refused at
    qualification, server stopping); a stream the bot closed ends without one."""

    _ids = itertools.count(1)

    def __init__(self, source: str, context: grpc.aio.ServicerContext, user: User | None = None,
                 name: str = "", game: str = "", origin: str | None = None) -> None:
        self.source = source
        #: The client's cap key (``addr:…``), recorded with the qualifications it starts.
        self.origin = origin
        self.id = f"{next(self._ids)}-{time.monotonic_ns()}"
        self.context = context
        self.user, self.name, self.game = user, name, game
        self.bot_id: int | None = None
        #: The qualification this connection waits for (None: none) and whether an older
        #: connection of the bot began it.
        self.watching: int | None = None
        self.inherited = False
        self.writing = asyncio.Lock()  # one message at a time on a stream
        self.ended = asyncio.Event()
        self.ready = asyncio.Event()  # the welcome is written
        self.pending: dict[int, asyncio.Future[pb.ConnectBotAnswer]] = {}
        self.closed = False
        self.why = ""
        self.status: tuple[grpc.StatusCode, str] | None = None

    async def send(self, message: pb.ConnectBotResponse, welcome: bool = False) -> None:
        """Write a message down the bot's stream; one that cannot be written closes the session
        (the relay then reports the drop). The welcome is the stream's first message: a call
        (its qualification's StartMatch may be ready sooner) waits for it."""
        if not welcome and not self.ready.is_set():
            await self.ready.wait()
            if self.closed:
                return  # the call's future has failed with the reason
        try:
            async with self.writing:
                await self.context.write(message)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the stream is gone (the bot hung up, or it was replaced)
            self.close("the bot's connection closed")
        finally:
            if welcome:
                self.ready.set()

    def answer(self, answer: pb.ConnectBotAnswer) -> None:
        future = self.pending.pop(answer.call_id, None)
        if future is not None and not future.done():
            future.set_result(answer)

    def close(self, why: str, status: tuple[grpc.StatusCode, str] | None = None) -> None:
        if self.closed:
            return
        self.closed, self.why, self.status = True, why, status
        for future in self.pending.values():
            if not future.done():
                future.set_exception(_Dropped(why))
        self.pending.clear()
        self.ended.set()
        self.ready.set()  # calls waiting for the welcome give up


class DialinHub:
    """The connected dial-in bots of this server, and the two handlers that use them.

    Caps (``ServerConfig.dialin_*``, each refused with RESOURCE_EXHAUSTED and a message naming
    it): open streams in total and per client IP address (checked first, before the token is
    even looked up), per account (a stream waiting for its hello counts; a reconnection that
    replaces the bot's own stream does not count twice), new bot names per account per rolling
    hour, and qualifications pending per account and per client across its accounts (checked
    only when a hello would start one; the client is the one every per-client cap counts,
    :class:`arena.server.streams.ClientAddresses`); a bot refused at qualification for its own
    fault is not qualified again within ``requalify_backoff_s``. An account is cheap to make but
    not free (``Register`` is capped per client, arena.server.registrations), so the total and
    per-address caps are what bound the server; the per-account ones keep one user from taking
    a fair share of them (or of the qualification workers). With several API servers each
    counts its own streams; the hourly and pending counts come from the database (two servers
    may each let one hello through at the same instant)."""

    def __init__(self, submissions: Submissions, detail: Callable[[Any, Bot], pb.BotDetail],
                 executor: Executor, url: str | None = None, addresses: ClientAddresses | None = None) -> None:
        self.submissions = submissions
        self.addresses = addresses or ClientAddresses()
        self.config = submissions.config
        self.detail = detail
        self.executor = executor
        self.url = url
        self.sessions: dict[str, _Session] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._call_ids = itertools.count(1)
        self._heartbeat: asyncio.Future[None] | None = None
        self._watcher: asyncio.Future[None] | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self.open_streams = 0
        self._per_client: dict[str, int] = {}
        self._awaiting_hello: dict[str, int] = {}  # per account
        self._held: dict[str, set[str]] = {}  # per account: the sources of its open sessions
        self._locks: dict[str, asyncio.Lock] = {}  # per account: one hello decided at a time
        self._entering: dict[str, int] = {}  # per account: hellos holding or awaiting its lock
        self._origins = _KeyedLocks()  # per client: one hello decided at a time, across accounts

    def connected(self) -> set[str]:
        """The sources connected now (for the ladder)."""
        return {s for s, session in self.sessions.items() if not session.closed}

    # --- the bot's stream ---------------------------------------------------------------------
    async def connect(self, requests: AsyncIterator[pb.ConnectBotRequest], context: grpc.aio.ServicerContext) -> None:
        """Serve one bot's stream until it ends (a coroutine writing with ``context.write``:
        calls are written by the relay handlers, see :class:`_Session`). Every refusal is one
        log line and a status that says why."""
        client = client_of(context.peer())
        try:
            if self.open_streams >= self.config.dialin_streams:
                raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"the server already holds its limit of {self.config.dialin_streams} "
                               "dial-in connections; try again later")
            held = self._per_client.get(client, 0)
            if held >= self.config.dialin_streams_per_client:
                raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"too many dial-in connections from {client} (limit "
                               f"{self.config.dialin_streams_per_client} per address); close one first")
        except _Refused as exc:
            await self._refuse(context, exc, f"a client at {client}")
        self.open_streams += 1
        self._per_client[client] = held + 1
        try:
            await self._serve(requests, context, client,
                              self.addresses.client(context.peer(), tuple(context.invocation_metadata() or ())))
        finally:
            self.open_streams -= 1
            left = self._per_client.get(client, 1) - 1
            if left > 0:
                self._per_client[client] = left
            else:
                self._per_client.pop(client, None)

    async def _refuse(self, context: grpc.aio.ServicerContext, exc: _Refused, who: str) -> None:
        log.info("dial-in refused for %s: %s %s", who, exc.code.name, exc.message)
        await context.abort(exc.code, exc.message)

    async def _serve(self, requests: AsyncIterator[pb.ConnectBotRequest], context: grpc.aio.ServicerContext,
                     client: str, origin: str) -> None:
        loop = asyncio.get_running_loop()
        who = f"a client at {client}"
        try:
            try:
                user = await loop.run_in_executor(self.executor, accounts.caller, context, self.url)
            except Exception as exc:  # noqa: BLE001 - ApiError (a wrong token), or the database
                raise _Refused(*_status_of(exc)) from None
            who = f"user {user.name} at {client}"
            hello = await self._hello(requests, user)
            if hello is None:
                return  # the bot hung up before saying hello: nothing to answer
            source = dialin_client.source(user.name, hello.game, hello.name)
            who = f"{source} at {client}"
            session = await self._enter(user, hello, source, context, origin)
        except _Refused as exc:
            await self._refuse(context, exc, who)
        reader = asyncio.ensure_future(self._read(requests, session))
        try:
            await loop.run_in_executor(self.executor, dialin.mark, source, True)
            self._start_background()
            detail = await loop.run_in_executor(self.executor, self._detail_of, session.bot_id)
            log.info("dial-in bot %s connected (session %s)", source, session.id)
            await session.send(pb.ConnectBotResponse(welcome=pb.ConnectBotWelcome(
                bot=detail, qualifying=session.watching is not None)), welcome=True)
            await session.ended.wait()
        finally:
            session.close("the stream ended")
            reader.cancel()
            self._leave(session)
            log.info("dial-in bot %s disconnected (session %s): %s", source, session.id, session.why)
        if session.status is not None:
            await context.abort(*session.status)

    async def _hello(self, requests: AsyncIterator[pb.ConnectBotRequest], user: User) -> pb.ConnectBotHello | None:
        """The stream's first message, within the hello timeout (None: the stream ended
        first). Streams waiting for their hello are capped per account like connected ones
        (a connected bot's reconnection must get through to replace its old stream)."""
        cap = self.config.dialin_streams_per_account
        waiting = self._awaiting_hello.get(user.name, 0)
        if waiting >= cap:
            raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"user {user.name} has too many dial-in connections open (limit {cap}); close one first")
        self._awaiting_hello[user.name] = waiting + 1
        try:
            first = await asyncio.wait_for(anext(requests, None), self.config.dialin_hello_timeout_s)
        except TimeoutError:
            raise _Refused(grpc.StatusCode.DEADLINE_EXCEEDED,
                           f"no hello within {self.config.dialin_hello_timeout_s:g} s: the first ConnectBot "
                           "message must be a hello naming the bot and its game") from None
        finally:
            left = self._awaiting_hello.get(user.name, 1) - 1
            if left > 0:
                self._awaiting_hello[user.name] = left
            else:
                self._awaiting_hello.pop(user.name, None)
        if first is None:
            return None
        if first.WhichOneof("message") != "hello":
            raise _Refused(grpc.StatusCode.INVALID_ARGUMENT,
                           "the first ConnectBot message must be a hello naming the bot and its game")
        try:
            check_bot_name(first.hello.name)
            check_game(first.hello.game)
        except Exception as exc:  # noqa: BLE001 - ApiError, or the engine's ConfigError
            raise _Refused(*_status_of(exc)) from None
        return first.hello

    async def _enter(self, user: User, hello: pb.ConnectBotHello, source: str,
                     context: grpc.aio.ServicerContext, origin: str) -> _Session:
        """Admit the hello (refusals raise :class:`_Refused`), make its session the bot's (an
        older one is ended ABORTED), and start its qualification when it needs one. One hello
        per account and one per client at a time, so two hellos cannot both pass a cap."""
        lock = self._locks.setdefault(user.name, asyncio.Lock())
        self._entering[user.name] = self._entering.get(user.name, 0) + 1
        try:
            async with self._origins.hold(origin), lock:
                return await self._enter_locked(user, hello, source, context, origin)
        finally:
            left = self._entering.pop(user.name) - 1
            if left:
                self._entering[user.name] = left
            self._forget_account(user.name)

    async def _enter_locked(self, user: User, hello: pb.ConnectBotHello, source: str,
                            context: grpc.aio.ServicerContext, origin: str) -> _Session:
        loop = asyncio.get_running_loop()
        held = self._held.setdefault(user.name, set())
        cap = self.config.dialin_streams_per_account
        if source not in held and len(held) >= cap:
            raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"user {user.name} already has {len(held)} dial-in bots connected (limit {cap}); "
                           "disconnect one first")
        try:
            admission = await loop.run_in_executor(self.executor, self._admit, user, hello, source, origin)
        except _Refused:
            raise
        except Exception as exc:  # noqa: BLE001 - mapped like every Arena call's errors
            raise _Refused(*_status_of(exc)) from None
        session = _Session(source, context, user, hello.name, hello.game, origin)
        old = self.sessions.get(source)
        self.sessions[source] = session
        held.add(source)
        if old is not None:
            old.close("replaced by a newer connection", (
                grpc.StatusCode.ABORTED,
                f"replaced: a newer connection of bot {hello.name!r} for {hello.game} took over "
                "(one connection per bot; this one is closed)"))
        self._event(source).set()
        try:
            session.bot_id, session.watching, session.inherited = await loop.run_in_executor(
                self.executor, self._start, user, hello, source, admission, origin)
        except BaseException as exc:
            session.close("its qualification could not be started")
            self._leave(session)
            if isinstance(exc, Exception):
                raise _Refused(*_status_of(exc)) from None
            raise
        return session

    def _leave(self, session: _Session) -> None:
        """The session is over: forget it, unless a newer one of the same bot replaced it."""
        if self.sessions.get(session.source) is not session:
            return
        del self.sessions[session.source]
        owner = session.user.name if session.user is not None else ""
        self._held.get(owner, set()).discard(session.source)
        self._forget_account(owner)
        with contextlib.suppress(RuntimeError):  # the loop is stopping: the key expires
            asyncio.get_running_loop().run_in_executor(self.executor, dialin.mark, session.source, False)

    def _forget_account(self, owner: str) -> None:
        """Drop the account's entries once it has no stream held and no hello being decided."""
        if self._held.get(owner) or self._entering.get(owner):
            return
        self._held.pop(owner, None)
        self._locks.pop(owner, None)

    async def _read(self, requests: AsyncIterator[pb.ConnectBotRequest], session: _Session) -> None:
        try:
            async for message in requests:
                if message.WhichOneof("message") == "answer":
                    session.answer(message.answer)
        except (asyncio.CancelledError, grpc.RpcError, grpc.aio.AioRpcError):
            pass
        except Exception as exc:  # noqa: BLE001 - a broken stream is a dropped connection
            if not session.closed:  # (the hub ending the stream also ends this read: not news)
                log.warning("dial-in stream of %s failed: %s: %s", session.source, type(exc).__name__, exc)
        finally:
            session.close("the bot's connection closed")

    # --- admission, in the executor (database) ---------------------------------------------------
    def _admit(self, user: User, hello: pb.ConnectBotHello, source: str, origin: str | None = None) -> str:
        """What the hello needs: ``resume`` (a known bot), or ``qualify`` (a new bot, or one
        whose last qualification was refused). Refusals raise :class:`_Refused`."""
        with session_scope(self.url) as s:
            bot = s.scalar(select(Bot).where(Bot.name == hello.name, Bot.game == hello.game))
            if bot is not None and bot.owner != user.name:
                raise _Refused(grpc.StatusCode.PERMISSION_DENIED,
                               f"bot {hello.name!r} for {hello.game} belongs to another user; pick another name")
            latest = None
            if bot is not None:
                latest = s.scalar(select(Submission).where(Submission.bot_id == bot.id)
                                  .order_by(Submission.number.desc()).limit(1))
                has_version = s.scalar(select(BotVersion.id).where(BotVersion.bot_id == bot.id).limit(1)) is not None
                gone = _gone(bot, latest, has_version, source)
                if gone is not None:
                    raise _Refused(*gone)
            if latest is not None and latest.source == source and latest.status != REFUSED:
                return "resume"
            if latest is not None:
                self._check_backoff(bot, latest)
            self._check_qualification_caps(s, user, new_bot=bot is None, origin=origin)
            return "qualify"

    def _check_backoff(self, bot: Bot, latest: Submission) -> None:
        """A bot refused at qualification for its own fault qualifies again only
        ``requalify_backoff_s`` after the refusal: reconnecting a broken bot in a loop would
        keep a qualification slot busy for nothing."""
        backoff = self.config.requalify_backoff_s
        if latest.status != REFUSED or latest.refusal_kind not in _BOT_FAULTS or latest.finished_at is None:
            return
        wait_s = math.ceil((latest.finished_at + timedelta(seconds=backoff) - utcnow()).total_seconds())
        if wait_s > 0:
            raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"bot {bot.name!r} for {bot.game} was refused at qualification ({latest.refusal_kind}) "
                           f"and may qualify again {backoff} s after a refusal: connect again in {wait_s} s "
                           f"(GetVersionStatus(bot_id={bot.id}, number={latest.number}) says why it was refused)")

    def _check_qualification_caps(self, s: Any, user: User, new_bot: bool, origin: str | None = None) -> None:
        pending_cap = self.config.dialin_pending_qualifications
        pending = s.scalar(select(func.count()).select_from(Submission).join(Bot, Bot.id == Submission.bot_id)
                           .where(Bot.owner == user.name, Submission.status == QUALIFYING))
        if pending >= pending_cap:
            raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"user {user.name} already has {pending} qualification(s) pending (limit {pending_cap}); "
                           "connect this bot again once one is decided")
        client_cap = self.config.pending_qualifications_per_client
        if origin is not None:
            from_client = s.scalar(select(func.count()).select_from(Submission).where(
                Submission.client == origin[:CLIENT_CHARS], Submission.status == QUALIFYING))
            if from_client >= client_cap:
                raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"{from_client} qualification(s) started from {origin.removeprefix('addr:')} are "
                               f"pending (limit {client_cap} per client, whatever the account); connect this "
                               "bot again once one is decided")
        if not new_bot:
            return
        hourly = self.config.dialin_new_bots_per_hour
        since = utcnow() - timedelta(hours=1)
        created = list(s.scalars(
            select(Bot.created_at).join(Submission, Submission.bot_id == Bot.id)
            .where(Bot.owner == user.name, Bot.created_at >= since, Submission.number == 1,
                   Submission.source.startswith(f"{dialin_client.SCHEME}{user.name}/"))
            .order_by(Bot.created_at)))
        if len(created) >= hourly:
            wait_min = max(1, math.ceil((created[0] + timedelta(hours=1) - utcnow()).total_seconds() / 60))
            raise _Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"user {user.name} created {len(created)} dial-in bots in the last hour (limit {hourly} "
                           f"new names per hour); connect a bot you already have, or a new name in {wait_min} min")

    def _start(self, user: User, hello: pb.ConnectBotHello, source: str, admission: str,
               origin: str | None = None) -> tuple[int, int | None, bool]:
        """Start the qualification if the hello needs one. Returns the bot's id, the id of the
        qualification this connection waits for (None: the bot is qualified) and whether an
        older connection began it."""
        if admission == "qualify":
            self.submissions.submit_dialin(user, hello.name, hello.game, source, origin)
        with session_scope(self.url) as s:
            bot = s.scalar(select(Bot).where(Bot.name == hello.name, Bot.game == hello.game))
            sub = s.scalar(select(Submission).where(Submission.bot_id == bot.id)
                           .order_by(Submission.number.desc()).limit(1))
            qualifying = sub.status == QUALIFYING
            return bot.id, sub.id if qualifying else None, qualifying and admission == "resume"

    def _detail_of(self, bot_id: int) -> pb.BotDetail:
        with session_scope(self.url) as s:
            return self.detail(s, s.get(Bot, bot_id))

    # --- watching the connected bots ---------------------------------------------------------------
    async def _watch(self) -> None:
        """Every ``dialin_check_s``: end the streams of bots that were deactivated or moved to
        another route, and of bots refused at qualification (saying why); qualify again over
        its new connection a bot whose qualification an older connection lost."""
        loop = asyncio.get_running_loop()
        while self.sessions:
            await asyncio.sleep(self.config.dialin_check_s)
            live = [s for s in self.sessions.values() if not s.closed and s.bot_id is not None]
            if not live:
                continue
            try:
                verdicts = await loop.run_in_executor(
                    self.executor, self._look, [(s.bot_id, s.source, s.watching, s.inherited) for s in live])
            except Exception as exc:  # noqa: BLE001 - database trouble: look again next round
                log.warning("could not check the connected dial-in bots: %s: %s", type(exc).__name__, exc)
                continue
            for session, verdict in zip(live, verdicts, strict=True):
                if session.closed or verdict is None:
                    continue
                if verdict == "qualified":
                    session.watching = None
                elif verdict == "requalify":
                    session.watching = None
                    task = asyncio.ensure_future(self._requalify(session))
                    self._tasks.add(task)  # a task nobody references may be collected mid-run
                    task.add_done_callback(self._tasks.discard)
                else:
                    log.info("dial-in bot %s: stream ended, %s %s", session.source, verdict[0].name, verdict[1])
                    session.close(verdict[1], verdict)

    async def _requalify(self, session: _Session) -> None:
        """A qualification begun on an older connection was refused because that connection
        dropped (the match played on to its real end first): qualify the bot again over this
        one, while it is still the bot's."""
        loop = asyncio.get_running_loop()
        try:
            if session.closed or self.sessions.get(session.source) is not session:
                return
            hello = pb.ConnectBotHello(name=session.name, game=session.game)
            _bot, session.watching, _ = await loop.run_in_executor(
                self.executor, self._start, session.user, hello, session.source, "qualify", session.origin)
            session.inherited = False
        except Exception as exc:  # noqa: BLE001 - the next connection retries
            log.warning("re-qualifying %s failed: %s: %s", session.source, type(exc).__name__, exc)

    def _look(self, items: list[tuple[int, str, int | None, bool]]) -> list[Any]:
        """For each connected (bot id, source, watched qualification, inherited): None (all
        well), ``qualified`` (stop watching), ``requalify``, or the (status, message) that ends
        its stream."""
        ids = {bot_id for bot_id, _s, _w, _i in items}
        watched = {w for _b, _s, w, _i in items if w is not None}
        with session_scope(self.url) as s:
            bots = {b.id: b for b in s.scalars(select(Bot).where(Bot.id.in_(ids)))}
            versioned = set(s.scalars(select(BotVersion.bot_id).where(BotVersion.bot_id.in_(ids)).distinct()))
            newest = (select(Submission.bot_id, func.max(Submission.number).label("number"))
                      .where(Submission.bot_id.in_(ids)).group_by(Submission.bot_id).subquery())
            latest = {sub.bot_id: sub for sub in s.scalars(select(Submission).join(
                newest, (Submission.bot_id == newest.c.bot_id) & (Submission.number == newest.c.number)))}
            subs = {sub.id: sub for sub in s.scalars(select(Submission).where(Submission.id.in_(watched)))} if watched else {}
            verdicts: list[Any] = []
            for bot_id, source, watching, inherited in items:
                bot = bots.get(bot_id)
                if bot is None:
                    verdicts.append(None)
                    continue
                sub = subs.get(watching) if watching is not None else None
                if sub is not None and sub.status != QUALIFYING:
                    verdicts.append(_verdict_of_qualification(bot, sub, inherited))
                    continue
                verdicts.append(_gone(bot, latest.get(bot_id), bot_id in versioned, source))
            return verdicts

    async def aclose(self) -> None:
        """The server is stopping: drop every bot's stream, the presence heartbeat and the
        watcher."""
        for task in (self._heartbeat, self._watcher):
            if task is not None:
                task.cancel()
        for session in list(self.sessions.values()):
            session.close("the server is stopping",
                          (grpc.StatusCode.UNAVAILABLE, "the server is stopping; connect again shortly"))

    def _start_background(self) -> None:
        """Keep the presence keys of this server's bots fresh (with a broker; see
        arena.competition.dialin_presence), and watch the connected bots (:meth:`_watch`)."""
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.ensure_future(self._beat())
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.ensure_future(self._watch())

    async def _beat(self) -> None:
        loop = asyncio.get_running_loop()
        while self.sessions:
            await asyncio.sleep(dialin.PRESENCE_TTL_S / 3)
            await loop.run_in_executor(self.executor, dialin.refresh)

    def _event(self, source: str) -> asyncio.Event:
        event = self._changed.get(source)
        if event is None:
            event = self._changed[source] = asyncio.Event()
        return event

    # --- the relay ---------------------------------------------------------------------------
    def relay_handler(self) -> grpc.GenericRpcHandler:
        """Both relays: the stream (``DialinRelay/Relay``) and the unary ``Bot`` methods."""
        handlers = {
            f"/{BOT_SERVICE}/{name}": grpc.unary_unary_rpc_method_handler(self._relay_method(method))
            for name, method in _METHODS.items()
        }
        handlers[f"/{RELAY_SERVICE}/Relay"] = grpc.stream_stream_rpc_method_handler(
            self.relay_stream, request_deserializer=pb.RelayCall.FromString,
            response_serializer=pb.RelayAnswer.SerializeToString)
        return _PathHandler(handlers)

    async def _authorised_source(self, context: grpc.aio.ServicerContext) -> str:
        """The relayed bot's source, once the caller has shown the relay key (else abort)."""
        meta = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        key = meta.get(dialin_client.KEY_HEADER, "")
        if not key or not hmac.compare_digest(key.encode(), dialin_client.relay_key().encode()):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                f"the relay needs the server's relay key (set {dialin_client.RELAY_KEY_ENV} on the server and its workers)")
        return meta.get(dialin_client.SOURCE_HEADER, "")

    async def relay_stream(self, calls: AsyncIterator[pb.RelayCall], context: grpc.aio.ServicerContext) -> None:
        """One seat's calls, one at a time, each forwarded down the bot's stream.

        A START_MATCH binds the stream to the bot's connection of that moment (waiting up to
        :data:`CONNECT_GRACE_S` for a bot that is reconnecting); later calls go to that
        connection only, and the stream ends with :data:`referee.dialin_client.DROPPED` once it is gone.
        A call without a StartMatch before it (an EndMatch after a failed start) goes to the
        current connection, if any. A call that runs out of time is answered TIMEOUT and the
        stream stays open (the EndMatch of the forfeited seat still comes)."""
        source = await self._authorised_source(context)
        loop = asyncio.get_running_loop()
        bound: _Session | None = None
        async for call in calls:
            now = time.monotonic()
            deadline = now + (call.deadline_ms / 1000.0 if call.deadline_ms else 60.0)
            current = self.sessions.get(source)
            if call.method == pb.CONNECT_BOT_METHOD_START_MATCH:
                if current is None or current.closed:
                    current = await self._wait_for(source, min(deadline, now + CONNECT_GRACE_S))
                if current is None:
                    await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin_client.NOT_CONNECTED}: {source}")
                bound = current
            elif bound is not None and (bound.closed or current is not bound):
                await context.abort(grpc.StatusCode.UNAVAILABLE,
                                    f"{dialin_client.DROPPED}: {bound.why or 'replaced by a newer connection of the same bot'}")
            session = bound if bound is not None else current
            if session is None or session.closed:
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin_client.NOT_CONNECTED}: {source}")
            call_id = next(self._call_ids)
            future: asyncio.Future[pb.ConnectBotAnswer] = loop.create_future()
            session.pending[call_id] = future
            left = max(0.0, deadline - time.monotonic())
            # call_later + a plain await: asyncio.wait_for costs a task per call on this hot path.
            timer = loop.call_later(left, _expire, future)
            await session.send(pb.ConnectBotResponse(call=pb.ConnectBotCall(
                call_id=call_id, method=call.method, request=call.request, deadline_ms=int(left * 1000))))
            try:
                answer = await future
            except _Dropped as exc:
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin_client.DROPPED}: {exc}")
            except TimeoutError:
                session.pending.pop(call_id, None)
                await context.write(pb.RelayAnswer(call_id=call.call_id, outcome=pb.RELAY_OUTCOME_TIMEOUT,
                                                   detail="no answer from the dial-in bot in time"))
                continue
            finally:
                timer.cancel()
            if answer.error:
                await context.write(pb.RelayAnswer(call_id=call.call_id, outcome=pb.RELAY_OUTCOME_BOT_ERROR,
                                                   detail=answer.error[:500]))
            else:
                await context.write(pb.RelayAnswer(call_id=call.call_id, outcome=pb.RELAY_OUTCOME_REPLY,
                                                   reply=answer.reply))

    def _relay_method(self, method: int) -> Any:
        async def relay(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            return await self.relay(method, request, context)

        return relay

    async def relay(self, method: int, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        """The unary relay (workers of an earlier release): one call, one ``ConnectBotCall``."""
        source = await self._authorised_source(context)
        meta = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        bound = meta.get(dialin_client.SESSION_HEADER, "")
        remaining = context.time_remaining()
        deadline = time.monotonic() + (remaining if remaining is not None else 60.0)
        session = self.sessions.get(source)
        if bound:
            if session is None or session.id != bound:
                await context.abort(grpc.StatusCode.UNAVAILABLE,
                                    f"{dialin_client.DROPPED} during the match; a match does not move to a new connection")
        elif session is None and method == pb.CONNECT_BOT_METHOD_START_MATCH:
            session = await self._wait_for(source, min(deadline, time.monotonic() + CONNECT_GRACE_S))
        if session is None or session.closed:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin_client.NOT_CONNECTED}: {source}")
        call_id = next(self._call_ids)
        future: asyncio.Future[pb.ConnectBotAnswer] = asyncio.get_running_loop().create_future()
        session.pending[call_id] = future
        left_ms = max(0, int((deadline - time.monotonic()) * 1000))
        await session.send(pb.ConnectBotResponse(call=pb.ConnectBotCall(
            call_id=call_id, method=method, request=request, deadline_ms=left_ms)))
        try:
            answer = await asyncio.wait_for(future, timeout=max(0.0, deadline - time.monotonic()))
        except _Dropped as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin_client.DROPPED}: {exc}")
        except TimeoutError:
            session.pending.pop(call_id, None)
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer from the dial-in bot in time")
        if answer.error:
            await context.abort(grpc.StatusCode.UNKNOWN, answer.error[:500])
        if method == pb.CONNECT_BOT_METHOD_START_MATCH:
            context.set_trailing_metadata(((dialin_client.SESSION_HEADER, session.id),))
        return answer.reply

    async def _wait_for(self, source: str, until: float) -> _Session | None:
        while (session := self.sessions.get(source)) is None or session.closed:
            left = until - time.monotonic()
            if left <= 0:
                return None
            event = self._event(source)
            event.clear()
            try:
                await asyncio.wait_for(event.wait(), timeout=left)
            except TimeoutError:
                return None
        return session


def _gone(bot: Bot, latest: Submission | None, has_version: bool, source: str) -> tuple[grpc.StatusCode, str] | None:
    """Why a dial-in bot may no longer be served over ``source`` (None: it may)."""
    if not bot.active and has_version:
        return (grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} for {bot.game} was deactivated by its owner and is served no more "
                "matches; dial in under another name to play again")
    if latest is not None and latest.source != source and latest.status != REFUSED:
        route = "a hosted upload" if latest.kind == "hosted" else f"the remote address {latest.source}"
        return (grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} for {bot.game} is retired as a dial-in bot: its version {latest.number} is "
                f"{route}, and a bot is reached one way; dial in under another name")
    return None


def _verdict_of_qualification(bot: Bot, sub: Submission, inherited: bool) -> Any:
    """What a decided qualification means for the connection waiting for it."""
    if sub.status != REFUSED:
        return "qualified"
    kind = sub.refusal_kind or SERVER_ERROR
    if inherited and kind in ("disconnected", "unreachable"):
        return "requalify"  # the older connection's loss, not this one's
    where = f"GetVersionStatus(bot_id={bot.id}, number={sub.number}) has the match record"
    if kind in _BOT_FAULTS:
        return (grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} for {bot.game} failed its qualification match ({kind}): {sub.refusal_message}; "
                f"fix the bot and connect again ({where})")
    return (grpc.StatusCode.UNAVAILABLE,
            f"the qualification match of bot {bot.name!r} for {bot.game} could not be played ({kind}): "
            f"{sub.refusal_message}; connecting again qualifies it again")


class _KeyedLocks:
    """An asyncio lock per key, forgotten once nobody holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            left = self._users.pop(key) - 1
            if left:
                self._users[key] = left
            else:
                self._locks.pop(key, None)


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class _PathHandler(grpc.GenericRpcHandler):
    """Serves a fixed set of method paths (several services from one handler)."""

    def __init__(self, handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        self._handlers = handlers

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        return self._handlers.get(handler_call_details.method)
