"""Write a bot as one function and serve it with one call.

    from arena.sdk import serve_bot

    def act(observation, legal_options):
        return legal_options[0].id

    if __name__ == "__main__":
        serve_bot(act)

Or, with no port open at all, dial in to an Arena server (``connect_bot``, :mod:`arena.sdk.connect`).

This module is the SDK's core (the servicer, the server, ``serve_bot``); bot authors import its
names from :mod:`arena.sdk`.

The referee starts ``bot.py`` with ``--address unix:/path/to/socket`` (hosted bots) or the owner
runs it with ``--port 50061`` (remote bots); ``serve_bot`` parses that itself so a bot file needs
no argument handling. Everything else about gRPC stays out of the contestant's way.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import orjson

from arena.sdk.bot_server import BotServer, new_server
from arena.sdk.grpc_util import add_health_and_reflection
from referee._proto import bot_pb2, bot_pb2_grpc
from referee.protocol import PROTOCOL_VERSION, version_mismatch
from referee.tls import TlsError, server_credentials

ADDRESS_ENV = "ARENA_BOT_ADDRESS"
#: A remote bot's TLS certificate chain and key (PEM files), as ``--tls-cert``/``--tls-key``.
TLS_CERT_ENV = "ARENA_BOT_TLS_CERT"
TLS_KEY_ENV = "ARENA_BOT_TLS_KEY"


@dataclass(frozen=True, slots=True)
class Option:
    """One legal option as the bot sees it."""

    id: str
    label: str


@dataclass(frozen=True, slots=True)
class Turn:
    """The clock of one decision, for a bot whose ``act`` takes a third argument.

    ``time_left_ms`` is this decision's allowance plus the bank, ``bank_left_ms`` the bank alone
    (so ``time_left_ms - bank_left_ms`` is what may be spent without touching the bank);
    ``received`` is the ``time.perf_counter()`` at which the request arrived, so the bot can
    subtract what it has already spent (parsing the observation, say).
    """

    decision: int
    time_left_ms: int
    bank_left_ms: int
    prompt: str
    received: float

    def deadline(self, share: float, reserve_ms: float = 0.0) -> float:
        """The ``perf_counter()`` by which to answer, spending ``share`` of the decision's own time.

        ``reserve_ms`` is kept back for the reply's trip to the referee. The bank is never
        planned for: it is a cushion for a slow machine, not time to think.
        """
        own_ms = max(0.0, float(self.time_left_ms - self.bank_left_ms))
        share = min(1.0, max(0.0, share))
        return self.received + max(0.0, share * own_ms - reserve_ms) / 1000.0


ActFn = Callable[..., "str | tuple[str, str]"]
HookFn = Callable[[dict[str, Any]], None]


class BotServicer(bot_pb2_grpc.BotServicer):
    """Adapts a plain ``act`` function to the ``Bot`` gRPC service."""

    def __init__(
        self,
        act: ActFn,
        start: HookFn | None = None,
        end: HookFn | None = None,
        name: str = "",
    ) -> None:
        self._act = act
        self._wants_turn = _takes_three(act)
        self._start = start
        self._end = end
        self._name = name

    def StartMatch(
        self, request: bot_pb2.MatchStart, context: grpc.ServicerContext
    ) -> bot_pb2.Ready:  # noqa: N802
        if request.protocol_version != PROTOCOL_VERSION:
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, version_mismatch(request.protocol_version)
            )
        if self._start is not None:
            self._start(
                {
                    "match_id": request.match_id,
                    "game": request.game,
                    "variant": request.variant,
                    "seat": request.seat,
                    "players": request.players,
                    "seat_names": list(request.seat_names),
                    "decision_ms": request.time_control.decision_ms,
                    "bank_ms": request.time_control.bank_ms,
                }
            )
        return bot_pb2.Ready(protocol_version=PROTOCOL_VERSION, bot_name=self._name)

    def Act(self, request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> bot_pb2.ActReply:  # noqa: N802
        received = time.perf_counter()
        observation = orjson.loads(request.observation_json) if request.observation_json else {}
        options = [Option(o.id, o.label) for o in request.options]
        try:
            if self._wants_turn:
                turn = Turn(
                    request.decision,
                    request.time_left_ms,
                    request.bank_left_ms,
                    request.prompt,
                    received,
                )
                answer = self._act(observation, options, turn)
            else:
                answer = self._act(observation, options)
        except Exception:
            # The referee keeps the tail of stderr as the crash log the author will read.
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            raise
        if isinstance(answer, tuple):
            option_id, comment = answer
        else:
            option_id, comment = answer, ""
        return bot_pb2.ActReply(option_id=str(option_id), comment=str(comment)[:200])

    def EndMatch(self, request: bot_pb2.MatchEnd, context: grpc.ServicerContext) -> bot_pb2.Ack:  # noqa: N802
        if self._end is not None:
            self._end(
                {
                    "match_id": request.match_id,
                    "scores": list(request.scores),
                    "ranks": list(request.ranks),
                    "forfeit_reason": request.forfeit_reason,
                    "seat": request.seat,
                    "fault": bot_pb2.FaultReason.Name(request.fault)
                    .removeprefix("FAULT_REASON_")
                    .lower()
                    if request.fault
                    else "",
                }
            )
        return bot_pb2.Ack()


def _takes_three(act: ActFn) -> bool:
    """Does ``act`` accept a third positional argument (the :class:`Turn`)?"""
    try:
        params = list(inspect.signature(act).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


def sample_state(game: str, observation: dict[str, Any], seed: int = 0) -> Any:
    """A playable engine state of ``game`` sampled consistently with one seat's ``observation``.

    What the seat sees is reproduced exactly (``state.observation(seat) == observation``); what
    it cannot see (other hands, deck orders, future rolls) is drawn afresh from ``seed``, so a
    search bot can clone the result, apply option ids and play it on to the end. Different seeds
    give different samples. Raises :class:`referee.engine.EngineError` (a clear message) for a
    game whose engine cannot do this, or for an observation that is not the game's.
    """
    from referee import registry

    return registry.get_game(game).from_observation(observation, seed)


def make_server(
    act: ActFn,
    address: str,
    start: HookFn | None = None,
    end: HookFn | None = None,
    name: str = "",
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> tuple[BotServer | grpc.Server, int]:
    """Build (but do not start) a gRPC server for ``act`` bound to ``address``.

    Returns the server and the bound port (0 for a Unix socket). Used by ``serve_bot`` and by
    tests and in-process bots that need the server object. The server answers on one thread of
    its own (:mod:`arena.sdk.bot_server`: why, and what it serves); it has the ``grpc.Server``
    methods a bot needs (``start``, ``stop``, ``wait_for_termination``). With the
    ``cygrpc_server`` shortcut off (docs/shortcuts.md) it is a plain ``grpc.Server``. With ``tls_cert``/``tls_key`` (PEM
    files) a TCP address is served over TLS only (see :func:`_bind`).
    """
    server = new_server()
    bot_pb2_grpc.add_BotServicer_to_server(BotServicer(act, start, end, name), server)
    add_health_and_reflection(server, bot_pb2.DESCRIPTOR.services_by_name["Bot"].full_name)
    port = _bind(server, address, tls_cert, tls_key)
    if port == 0 and not address.startswith("unix:"):
        raise OSError(f"could not bind bot server to {address}")
    return server, port


def _bind(
    server: BotServer | grpc.Server, address: str, tls_cert: str | None, tls_key: str | None
) -> int:
    """Bind ``address``: TLS when a certificate and key are given (a remote bot the referee
    dials as ``tls://host:port``), plaintext otherwise. A Unix socket (the referee's hosted
    bots) is never TLS: it never leaves the machine."""
    credentials = None if address.startswith("unix:") else server_credentials(tls_cert, tls_key)
    if credentials is not None:
        return server.add_secure_port(address, credentials)
    return server.add_insecure_port(address)


def serve_bot(
    act: ActFn,
    start: HookFn | None = None,
    end: HookFn | None = None,
    name: str | None = None,
    argv: list[str] | None = None,
) -> None:
    """Serve ``act`` as a ``Bot`` gRPC server until the process is stopped.

    ``act(observation, legal_options)`` returns an option id, or ``(option_id, comment)``.
    Exceptions inside ``act`` are printed to stderr and reported to the referee as an error,
    which forfeits the seat: a bot should not hide its own bugs.
    """
    parser = argparse.ArgumentParser(description="Serve this bot over gRPC.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--address", help="gRPC address, e.g. unix:/tmp/bot.sock or 127.0.0.1:50061")
    group.add_argument("--port", type=int, help="serve on 0.0.0.0:PORT (a remote bot)")
    parser.add_argument(
        "--tls-cert",
        default=os.environ.get(TLS_CERT_ENV) or None,
        help=f"serve TLS with this certificate chain (PEM) [${TLS_CERT_ENV}]; the referee dials tls://host:port",
    )
    parser.add_argument(
        "--tls-key",
        default=os.environ.get(TLS_KEY_ENV) or None,
        help=f"its private key (PEM) [${TLS_KEY_ENV}]",
    )
    args = parser.parse_args(argv)
    if args.port is not None:
        address = f"0.0.0.0:{args.port}"
    else:
        address = args.address or os.environ.get(ADDRESS_ENV) or "127.0.0.1:50061"
    bot_name = (
        name
        if name is not None
        else os.path.basename(os.path.dirname(os.path.abspath(sys.argv[0])))
    )
    try:
        server, _ = make_server(act, address, start, end, bot_name, args.tls_cert, args.tls_key)
    except (OSError, RuntimeError, TlsError) as exc:
        print(f"bot: cannot serve on {address}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    server.start()
    tls = " over TLS" if args.tls_cert and not address.startswith("unix:") else ""
    print(f"bot {bot_name!r} serving on {address}{tls}", file=sys.stderr, flush=True)
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(grace=0.5)
    except Exception:  # pragma: no cover - surfaced to the referee as a crash
        traceback.print_exc()
        raise
