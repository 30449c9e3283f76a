"""A bot that dials in: the client side of ``Arena.ConnectBot`` (see ``referee/dialin_client.py``).

The bot opens one stream to the Arena server with its owner's token, says which bot it is, and
answers the calls the server relays to it (StartMatch, Act, EndMatch of any number of matches
at once, on a few threads so that one slow match does not hold up another). No port is opened
on the bot's machine.

The threads take turns reading the stream (leader/followers): the one that receives a call
answers it itself while the next one reads, so a call is not handed from a reading thread to a
pool thread — that hand-over cost about a fifth of a relayed decision. Nor does grpc hand the
messages between threads of its own: the stream is a :class:`~referee.direct_stream.DirectStream`,
polled by the reading thread, and an answer is sent by the thread that made it (while the
``cygrpc_stream`` shortcut is on; off, grpc's public stream: docs/shortcuts.md).

When the stream drops, :meth:`DialInBot.run` connects again after a short back-off, so the
bot is served the next matches; the match that was cut is forfeited by the referee
(``disconnected``). Mistakes that reconnecting cannot mend (a wrong token, a name taken by
someone else, an unknown game, a bot deactivated by its owner or refused at qualification for
its own fault) end ``run`` with :class:`ConnectError`, and so does a newer connection of the
same bot taking over (``ABORTED``): two copies of a bot would otherwise take the stream from
each other for ever. A server at one of its caps (``RESOURCE_EXHAUSTED``) is asked again after
the longest back-off.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import grpc

from arena.sdk.auth import auth_metadata
from arena.sdk.bot import ActFn, BotServicer, HookFn
from referee._proto import arena_pb2 as pb
from referee._proto import bot_pb2
from referee.direct_stream import DirectStream, PublicStream, open_stream
from referee.protocol import bot_error_text
from referee.tls import env_ca, env_tls, open_channel

log = logging.getLogger("arena.sdk")

#: Statuses that reconnecting cannot mend: the user must change something.
_FATAL = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNIMPLEMENTED,
    grpc.StatusCode.ABORTED,  # replaced by a newer connection of the same bot
}
CONNECT_PATH = "/tabletop.arena.v1.Arena/ConnectBot"
_DECODE = {
    pb.CONNECT_BOT_METHOD_START_MATCH: (bot_pb2.MatchStart, "StartMatch"),
    pb.CONNECT_BOT_METHOD_ACT: (bot_pb2.ActRequest, "Act"),
    pb.CONNECT_BOT_METHOD_END_MATCH: (bot_pb2.MatchEnd, "EndMatch"),
}


class ConnectError(Exception):
    """The server refused the bot for a reason that reconnecting will not change."""


class DialInBot:
    """One dialling bot: :meth:`run` blocks, serving matches and reconnecting, until
    :meth:`stop`. ``welcomed`` is set whenever a connection is accepted; ``connections``
    counts them."""

    def __init__(
        self,
        act: ActFn,
        server: str,
        token: str,
        name: str,
        game: str,
        start: HookFn | None = None,
        end: HookFn | None = None,
        tls: bool | None = None,
        ca: Path | str | None = None,
        workers: int = 4,
        backoff_s: float = 0.2,
        max_backoff_s: float = 10.0,
    ) -> None:
        self.server, self.token, self.name, self.game = server, token, name, game
        self.ca = ca if ca is not None else env_ca()
        self.tls = bool(self.ca) or (tls if tls is not None else env_tls())
        self.servicer = BotServicer(act, start, end, name)
        self.backoff_s, self.max_backoff_s = backoff_s, max_backoff_s
        self.welcomed = threading.Event()
        self.welcome: pb.ConnectBotWelcome | None = None
        self.connections = 0
        self._stopped = threading.Event()
        self._stream: DirectStream | PublicStream | None = None
        self.workers = max(1, workers)
        self._lock = threading.Lock()
        self._at_cap = False

    # --- control ---------------------------------------------------------------------------
    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def wait_stopped(self, timeout: float) -> bool:
        """Block up to ``timeout`` s; True once :meth:`stop` was called."""
        return self._stopped.wait(timeout)

    def stop(self) -> None:
        """End :meth:`run` (the current connection is closed)."""
        self._stopped.set()
        self.drop()

    def drop(self) -> None:
        """Close the current connection now; :meth:`run` connects again (a network cut)."""
        with self._lock:
            stream = self._stream
        if stream is not None:
            stream.cancel("the bot dropped its connection")

    # --- the loop --------------------------------------------------------------------------
    def run(self) -> None:
        """Serve until :meth:`stop`; raises :class:`ConnectError` for a refusal."""
        delay = self.backoff_s
        while not self._stopped.is_set():
            self._at_cap = False
            welcomed = self._serve_once()
            if self._stopped.is_set():
                break
            delay = self.backoff_s if welcomed else min(delay * 2, self.max_backoff_s)
            if self._at_cap:
                delay = self.max_backoff_s
            self._stopped.wait(delay)

    def _serve_once(self) -> bool:
        """One connection, until it ends. True if the server had welcomed it."""
        channel = open_channel(
            self.server,
            tls=self.tls,
            ca=self.ca,
            options=[
                ("grpc.keepalive_time_ms", 20000),
                ("grpc.keepalive_timeout_ms", 10000),
                ("grpc.http2.max_pings_without_data", 0),
                ("grpc.keepalive_permit_without_calls", 1),
                # No BDP probing: a PING after every received call costs CPU on every decision and
                # buys nothing for messages of a few KB (the keepalive pings above stay).
                ("grpc.http2.bdp_probe", 0),
            ],
        )
        stream = open_stream(channel, CONNECT_PATH, auth_metadata(self.token))
        stream.send(
            pb.ConnectBotRequest(
                hello=pb.ConnectBotHello(name=self.name, game=self.game)
            ).SerializeToString()
        )
        with self._lock:
            self._stream = stream
        turns = _Turns(stream)
        threads = [
            threading.Thread(
                target=self._take_turns, args=(turns,), daemon=True, name=f"dialin-bot-{i}"
            )
            for i in range(self.workers)
        ]
        try:
            for thread in threads:
                thread.start()
            while not turns.ended.wait(0.5):  # in slices: Ctrl+C stays prompt
                pass
            if turns.error is not None:
                raise turns.error
        except grpc.RpcError as exc:
            code = exc.code()
            if code in _FATAL:
                raise ConnectError(f"{code.name}: {exc.details()}") from None
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                self._at_cap = True
                print(
                    f"bot {self.name!r}: not accepted now ({exc.details()}); trying again in "
                    f"{self.max_backoff_s:g} s",
                    file=sys.stderr,
                    flush=True,
                )
            elif code != grpc.StatusCode.CANCELLED:
                print(
                    f"bot {self.name!r}: connection lost ({code.name}: {exc.details()}); reconnecting",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            with self._lock:
                self._stream = None
            self.welcomed.clear()
            stream.close()
            channel.close()
        return turns.welcomed

    def _take_turns(self, turns: _Turns) -> None:
        """One of the connection's threads: read the stream in turn, answer what it read.
        Ends with the stream (a call being answered is finished first; its answer is lost)."""
        while True:
            with turns.reading:
                if turns.ended.is_set():
                    return
                raw = turns.stream.receive()
                if raw is None:
                    ended_ok = (
                        turns.stream.status is not None
                        and turns.stream.status[0] == grpc.StatusCode.OK
                    )
                    turns.end(None if ended_ok else turns.stream.error())
                    return
                response = pb.ConnectBotResponse.FromString(raw)
                kind = response.WhichOneof("message")
                if kind == "welcome":
                    turns.welcomed = True
                    self.welcome = response.welcome
                    self.connections += 1
                    self.welcomed.set()
                    print(
                        f"bot {self.name!r} connected to {self.server} for {self.game}",
                        file=sys.stderr,
                        flush=True,
                    )
                    continue
            if kind == "call":
                self._answer(response.call, turns.stream)

    def _answer(self, call: pb.ConnectBotCall, stream: DirectStream | PublicStream) -> None:
        answer = pb.ConnectBotAnswer(call_id=call.call_id)
        try:
            answer.reply = self.reply(call)
        except Exception as exc:  # noqa: BLE001 - reported to the referee as the bot's error
            answer.error = bot_error_text(exc)
        stream.send(pb.ConnectBotRequest(answer=answer).SerializeToString())

    def reply(self, call: pb.ConnectBotCall) -> bytes:
        """The serialized answer to one call (here: the ``act`` function's)."""
        message_type, method = _DECODE[call.method]
        return getattr(self.servicer, method)(
            message_type.FromString(call.request), None
        ).SerializeToString()


class _Turns:
    """What a connection's threads share: the stream (read by one at a time), and how it
    ended."""

    def __init__(self, stream: DirectStream | PublicStream) -> None:
        self.stream = stream
        self.reading = threading.Lock()
        self.ended = threading.Event()
        self.error: grpc.RpcError | None = None
        self.welcomed = False

    def end(self, error: grpc.RpcError | None) -> None:
        self.error = error
        self.ended.set()


class ForwardingDialInBot(DialInBot):
    """Dials in on behalf of a bot that serves ``tabletop.bot.v1.Bot`` locally (``arena
    connect DIR``: any language, the folder's bot.py or bot.json): each call is passed on
    to ``local`` unchanged, within the referee's deadline."""

    def __init__(
        self, local: grpc.Channel, server: str, token: str, name: str, game: str, **kw: object
    ) -> None:
        super().__init__(lambda _o, _l: "", server, token, name, game, **kw)  # type: ignore[arg-type]
        self._local = local
        self._methods = {
            code: local.unary_unary(f"/tabletop.bot.v1.Bot/{method}")
            for code, (_t, method) in _DECODE.items()
        }

    def run(self) -> None:
        """Dial in once the local bot listens: connected earlier, the qualification match
        (started at once) would wait for a bot still starting up and forfeit it as
        ``unreachable`` when that takes longer than the start budget."""
        ready = grpc.channel_ready_future(self._local)
        try:
            while not self._stopped.is_set():
                try:
                    ready.result(timeout=0.5)
                    break
                except grpc.FutureTimeoutError:
                    continue
        finally:
            ready.cancel()
        super().run()

    def reply(self, call: pb.ConnectBotCall) -> bytes:
        try:
            method = self._methods[call.method]
        except KeyError:
            raise ValueError(f"unknown method {call.method}") from None
        try:
            return method(
                call.request, timeout=max(0.05, call.deadline_ms / 1000.0), wait_for_ready=True
            )
        except grpc.RpcError as exc:
            raise RuntimeError(f"the local bot failed: {exc.code().name} {exc.details()}") from None


def connect_bot(
    act: ActFn,
    server: str,
    token: str,
    name: str,
    game: str,
    start: HookFn | None = None,
    end: HookFn | None = None,
    tls: bool | None = None,
    ca: str | None = None,
) -> None:
    """Dial in to the Arena server ``server`` (``host:port``) as bot ``name`` of ``game``,
    with the owner's API ``token``, and play the matches it serves until Ctrl+C; reconnects
    after a dropped connection. Opens no port (works behind NAT). ``tls``/``ca`` as for the
    ``arena`` client commands."""
    bot = DialInBot(act, server, token, name, game, start, end, tls=tls, ca=ca)
    try:
        bot.run()
    except KeyboardInterrupt:
        bot.stop()
