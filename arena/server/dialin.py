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
:data:`arena.dialin.DROPPED`, which the referee records as ``disconnected``; a reconnected bot is
served the *next* matches. See ``arena/dialin.py`` for who may call the relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from typing import Any

import grpc
from sqlalchemy import select

from arena import dialin
from arena._proto import arena_pb2 as pb
from arena.db import Bot, session_scope
from arena.db.accounts import QUALIFYING, REFUSED, Submission, User
from arena.server import accounts
from arena.server.errors import ApiError, _status_of
from arena.server.submissions import Submissions, check_bot_name, check_game

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


class _Session:
    """One open ``ConnectBot`` stream. Calls are written to it by the relay handlers
    themselves (:meth:`send`), not handed to the stream's own task through a queue: that
    hand-over was a task switch on every decision."""

    _ids = itertools.count(1)

    def __init__(self, source: str, context: grpc.aio.ServicerContext) -> None:
        self.source = source
        self.id = f"{next(self._ids)}-{time.monotonic_ns()}"
        self.context = context
        self.writing = asyncio.Lock()  # one message at a time on a stream
        self.ended = asyncio.Event()
        self.pending: dict[int, asyncio.Future[pb.ConnectBotAnswer]] = {}
        self.closed = False
        self.why = ""

    async def send(self, message: pb.ConnectBotResponse) -> None:
        """Write a message down the bot's stream; one that cannot be written closes the session
        (the relay then reports the drop)."""
        try:
            async with self.writing:
                await self.context.write(message)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the stream is gone (the bot hung up, or it was replaced)
            self.close("the bot's connection closed")

    def answer(self, answer: pb.ConnectBotAnswer) -> None:
        future = self.pending.pop(answer.call_id, None)
        if future is not None and not future.done():
            future.set_result(answer)

    def close(self, why: str) -> None:
        if self.closed:
            return
        self.closed, self.why = True, why
        for future in self.pending.values():
            if not future.done():
                future.set_exception(_Dropped(why))
        self.pending.clear()
        self.ended.set()


class DialinHub:
    """The connected dial-in bots of this server, and the two handlers that use them."""

    def __init__(self, submissions: Submissions, detail: Callable[[Any, Bot], pb.BotDetail],
                 executor: Executor, url: str | None = None) -> None:
        self.submissions = submissions
        self.detail = detail
        self.executor = executor
        self.url = url
        self.sessions: dict[str, _Session] = {}
        self._changed: dict[str, asyncio.Event] = {}
        self._call_ids = itertools.count(1)
        self._heartbeat: asyncio.Future[None] | None = None

    def connected(self) -> set[str]:
        """The sources connected now (for the ladder)."""
        return {s for s, session in self.sessions.items() if not session.closed}

    # --- the bot's stream ---------------------------------------------------------------------
    async def connect(self, requests: AsyncIterator[pb.ConnectBotRequest], context: grpc.aio.ServicerContext) -> None:
        """Serve one bot's stream until it ends (a coroutine writing with ``context.write``:
        calls are written by the relay handlers, see :class:`_Session`)."""
        loop = asyncio.get_running_loop()
        try:
            user = await loop.run_in_executor(self.executor, accounts.caller, context, self.url)
        except ApiError as exc:
            await context.abort(exc.code, exc.message)
        try:
            first = await anext(requests)
        except StopAsyncIteration:
            return
        if first.WhichOneof("message") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first ConnectBot message must be a hello naming the bot and its game")
        hello = first.hello
        try:
            check_bot_name(hello.name)
            check_game(hello.game)
        except Exception as exc:  # noqa: BLE001 - ApiError, or the engine's ConfigError
            await context.abort(*_status_of(exc))
        source = dialin.source(user.name, hello.game, hello.name)
        session = _Session(source, context)
        old = self.sessions.get(source)
        self.sessions[source] = session
        if old is not None:
            old.close("replaced by a newer connection of the same bot")
        self._event(source).set()
        await loop.run_in_executor(self.executor, dialin.mark, source, True)
        self._start_heartbeat()
        reader = asyncio.ensure_future(self._read(requests, session))
        watcher: asyncio.Future[None] | None = None
        try:
            try:
                detail, qualifying, inherited = await loop.run_in_executor(
                    self.executor, self._register, user, hello, source)
            except Exception as exc:  # noqa: BLE001 - mapped like every Arena call's errors
                await context.abort(*_status_of(exc))
            log.info("dial-in bot %s connected (session %s)", source, session.id)
            if inherited is not None:
                watcher = asyncio.ensure_future(self._requalify(session, user, hello, inherited))
            await session.send(pb.ConnectBotResponse(welcome=pb.ConnectBotWelcome(bot=detail, qualifying=qualifying)))
            await session.ended.wait()
        finally:
            session.close("the stream ended")
            reader.cancel()
            if watcher is not None:
                watcher.cancel()
            if self.sessions.get(source) is session:
                del self.sessions[source]
                with contextlib.suppress(RuntimeError):  # the loop is stopping: the key expires
                    loop.run_in_executor(self.executor, dialin.mark, source, False)
            log.info("dial-in bot %s disconnected (session %s)", source, session.id)

    async def _read(self, requests: AsyncIterator[pb.ConnectBotRequest], session: _Session) -> None:
        try:
            async for message in requests:
                if message.WhichOneof("message") == "answer":
                    session.answer(message.answer)
        except (asyncio.CancelledError, grpc.RpcError, grpc.aio.AioRpcError):
            pass
        except Exception:  # noqa: BLE001 - a broken stream is a dropped connection, logged
            log.exception("dial-in stream of %s failed", session.source)
        finally:
            session.close("the bot's connection closed")

    async def _requalify(self, session: _Session, user: User, hello: pb.ConnectBotHello, sub_id: int) -> None:
        """A qualification begun on an older connection may still be refused because that
        connection dropped (the match plays on to its real end first): once it ends refused,
        and this connection is still the bot's, qualify the bot again over this one."""
        loop = asyncio.get_running_loop()
        try:
            status = QUALIFYING
            while status == QUALIFYING and not session.closed:
                await asyncio.sleep(0.25)
                status = await loop.run_in_executor(self.executor, self._status_of, sub_id)
            if status == REFUSED and not session.closed and self.sessions.get(session.source) is session:
                await loop.run_in_executor(self.executor, self._register, user, hello, session.source)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the next connection retries; logged
            log.exception("re-qualifying %s failed", session.source)

    def _status_of(self, sub_id: int) -> str | None:
        with session_scope(self.url) as s:
            sub = s.get(Submission, sub_id)
            return sub.status if sub is not None else None

    def _register(self, user: User, hello: pb.ConnectBotHello, source: str) -> tuple[pb.BotDetail, bool, int | None]:
        """Create and qualify the bot on its first connection (or after a refusal); later
        connections only resume. Returns the bot, whether it is qualifying now, and the id of a
        qualification an earlier connection began and that is still running (else None)."""
        with session_scope(self.url) as s:
            bot = s.scalar(select(Bot).where(Bot.name == hello.name, Bot.game == hello.game))
            latest = None
            if bot is not None:
                latest = s.scalar(select(Submission).where(Submission.bot_id == bot.id)
                                  .order_by(Submission.number.desc()).limit(1))
            known = latest is not None and latest.source == source and latest.status != REFUSED
        if not known:
            self.submissions.submit_dialin(user, hello.name, hello.game, source)
        with session_scope(self.url) as s:
            bot = s.scalar(select(Bot).where(Bot.name == hello.name, Bot.game == hello.game))
            sub = s.scalar(select(Submission).where(Submission.bot_id == bot.id)
                           .order_by(Submission.number.desc()).limit(1))
            inherited = sub.id if known and sub.status == QUALIFYING else None
            return self.detail(s, bot), sub.status == QUALIFYING, inherited

    async def aclose(self) -> None:
        """The server is stopping: drop every bot's stream and the presence heartbeat."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        for session in list(self.sessions.values()):
            session.close("the server is stopping")

    def _start_heartbeat(self) -> None:
        """Keep the presence keys of this server's bots fresh (with a broker; see arena.dialin)."""
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.ensure_future(self._beat())

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
        key = meta.get(dialin.KEY_HEADER, "")
        if not key or not hmac.compare_digest(key.encode(), dialin.relay_key().encode()):
            await context.abort(grpc.StatusCode.PERMISSION_DENIED,
                                f"the relay needs the server's relay key (set {dialin.RELAY_KEY_ENV} on the server and its workers)")
        return meta.get(dialin.SOURCE_HEADER, "")

    async def relay_stream(self, calls: AsyncIterator[pb.RelayCall], context: grpc.aio.ServicerContext) -> None:
        """One seat's calls, one at a time, each forwarded down the bot's stream.

        A START_MATCH binds the stream to the bot's connection of that moment (waiting up to
        :data:`CONNECT_GRACE_S` for a bot that is reconnecting); later calls go to that
        connection only, and the stream ends with :data:`arena.dialin.DROPPED` once it is gone.
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
                    await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin.NOT_CONNECTED}: {source}")
                bound = current
            elif bound is not None and (bound.closed or current is not bound):
                await context.abort(grpc.StatusCode.UNAVAILABLE,
                                    f"{dialin.DROPPED}: {bound.why or 'replaced by a newer connection of the same bot'}")
            session = bound if bound is not None else current
            if session is None or session.closed:
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin.NOT_CONNECTED}: {source}")
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
                await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin.DROPPED}: {exc}")
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
        bound = meta.get(dialin.SESSION_HEADER, "")
        remaining = context.time_remaining()
        deadline = time.monotonic() + (remaining if remaining is not None else 60.0)
        session = self.sessions.get(source)
        if bound:
            if session is None or session.id != bound:
                await context.abort(grpc.StatusCode.UNAVAILABLE,
                                    f"{dialin.DROPPED} during the match; a match does not move to a new connection")
        elif session is None and method == pb.CONNECT_BOT_METHOD_START_MATCH:
            session = await self._wait_for(source, min(deadline, time.monotonic() + CONNECT_GRACE_S))
        if session is None or session.closed:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin.NOT_CONNECTED}: {source}")
        call_id = next(self._call_ids)
        future: asyncio.Future[pb.ConnectBotAnswer] = asyncio.get_running_loop().create_future()
        session.pending[call_id] = future
        left_ms = max(0, int((deadline - time.monotonic()) * 1000))
        await session.send(pb.ConnectBotResponse(call=pb.ConnectBotCall(
            call_id=call_id, method=method, request=request, deadline_ms=left_ms)))
        try:
            answer = await asyncio.wait_for(future, timeout=max(0.0, deadline - time.monotonic()))
        except _Dropped as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{dialin.DROPPED}: {exc}")
        except TimeoutError:
            session.pending.pop(call_id, None)
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer from the dial-in bot in time")
        if answer.error:
            await context.abort(grpc.StatusCode.UNKNOWN, answer.error[:500])
        if method == pb.CONNECT_BOT_METHOD_START_MATCH:
            context.set_trailing_metadata(((dialin.SESSION_HEADER, session.id),))
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


def _expire(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


class _PathHandler(grpc.GenericRpcHandler):
    """Serves a fixed set of method paths (several services from one handler)."""

    def __init__(self, handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        self._handlers = handlers

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        return self._handlers.get(handler_call_details.method)
