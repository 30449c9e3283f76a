"""The bot's gRPC server: one thread polls for calls and answers each one itself.

Why not ``grpc.server``: its sync server hands every call between two Python threads — the
thread that polls gRPC's completion queue and a pool thread that runs the handler — and back
again for the request message and for the reply, so one ``Act`` costs the bot some seven thread
switches. A bot is asked one thing at a time, so nothing is gained by the pool. Measured with
the random bot over a Unix socket (grpcio 1.85, a 10.7 KB Black Angel ``ActRequest``, the same
run): ~560-630 µs of the bot's CPU and ~7.5 context switches per call with ``grpc.server``, ~300
µs and ~1.9 here; the referee waits ~30 % less per decision. It is the bot author's time budget
and, on a tournament worker, half the CPU a match of two random bots costs.

The server is built on ``cygrpc``, grpc's own layer beneath ``grpc.server`` (as
:mod:`referee.direct_stream` is for streams): a call's operations are started from the polling
thread and their completions come back to the same queue. It serves

* unary methods (the ``Bot`` service, ``grpc.health.v1.Health/Check``), and
* streams that answer each request with one reply (server reflection, v1 and v1alpha);

anything else gets UNIMPLEMENTED (as ``Health/Watch`` may, per gRPC's health-checking protocol).
Calls are answered one after another, in arrival order: a health check sent while ``act``
thinks waits for it, as the referee's next call would.

``cygrpc``, ``grpc._common.validate_port_binding_result`` and the private attributes read here
(a generic handler's ``_method_handlers``, credentials' ``_credentials``) are grpc's insides, so
this server is a *shortcut* (:mod:`referee.shortcuts`, docs/shortcuts.md): ``cygrpc_server``.
:func:`new_server` builds it while the shortcut is on; when it is off (``ARENA_SHORTCUTS``, or a
grpcio release it was not tested with) it builds the public ``grpc.server`` with a small pool
instead, and the private modules are never imported.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from referee import shortcuts
from referee.protocol import bot_error_text

SHORTCUT = shortcuts.register(
    shortcuts.Shortcut(
        name="cygrpc_server",
        package="grpcio",
        tested=("1.85",),
        what="a bot server on grpc._cython.cygrpc (and grpc._common.validate_port_binding_result) "
        "instead of grpc.server",
    )
)

_EMPTY = 0  # no operation flags
#: The public server's pool: a bot is asked one thing at a time, a health check may come meanwhile.
PUBLIC_WORKERS = 4
_POLL_S = 1.0  # how often an idle loop looks up (a stop always wakes it at once anyway)
_REQUEST = object()
_SHUTDOWN = object()
#: Silent unless the bot configures logging, like grpc's own logger: the SDK's servicer already
#: prints a failing ``act``'s traceback, and a second copy would push the bot's own last lines out
#: of the log tail the referee keeps.
_LOG = logging.getLogger(__name__)
_LOG.addHandler(logging.NullHandler())


@dataclass(frozen=True)
class Method:
    """One served method: ``handler(request, context)`` returns the reply (``unary``), or
    ``handler(request_iterator, context)`` yields one reply per request (``stream``)."""

    kind: str  # "unary" | "stream"
    handler: Callable[..., Any]
    request_deserializer: Callable[[bytes], Any]
    response_serializer: Callable[[Any], bytes]


def methods_of(handlers: dict[str, grpc.RpcMethodHandler]) -> dict[bytes, Method]:
    """Those of ``handlers`` (keyed by their path, ``/service/Method``) this server can serve."""
    served = {}
    for path, h in handlers.items():
        if h.request_streaming and h.response_streaming:
            kind, fn = "stream", h.stream_stream
        elif not h.request_streaming and not h.response_streaming:
            kind, fn = "unary", h.unary_unary
        else:
            continue  # one-sided streams (Health/Watch): UNIMPLEMENTED
        served[path.encode()] = Method(kind, fn, h.request_deserializer, h.response_serializer)
    return served


class _Abort(Exception):
    pass


class _Context:
    """What this project's handlers (and grpc's health and reflection servicers) ask of the
    ``grpc.ServicerContext``."""

    def __init__(self, call: Any, metadata: tuple) -> None:
        self._call = call
        self._metadata = metadata
        self.code = grpc.StatusCode.OK
        self.details = ""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.code, self.details = code, details
        raise _Abort()

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code = code

    def set_details(self, details: str) -> None:
        self.details = details

    def invocation_metadata(self) -> tuple:
        return self._metadata

    def peer(self) -> str:
        return self._call.peer().decode(errors="replace")

    def is_active(self) -> bool:
        return True


class _Queue(Iterator):
    """A stream's requests as the iterator its handler reads: each arrives before the handler is
    asked for the reply to it."""

    def __init__(self) -> None:
        self.items: collections.deque = collections.deque()

    def __next__(self) -> Any:
        if not self.items:
            raise StopIteration
        return self.items.popleft()


class _Call:
    """One call in progress: its method, handler context and (for a stream) its replies."""

    def __init__(self, call: Any, method: Method | None, metadata: tuple) -> None:
        self.call = call
        self.method = method
        self.context = _Context(call, metadata)
        self.requests: _Queue | None = None
        self.replies: Iterator | None = None
        self.sent_metadata = False


class BotServer:
    """A started server answers calls on its own (daemon) thread until :meth:`stop`."""

    def __init__(self, options: tuple = ()) -> None:
        from grpc._cython import cygrpc  # private: imported only when the shortcut runs

        self._cy = cygrpc
        self._queue = cygrpc.CompletionQueue()
        self._server = self._cy.Server(tuple(options), False)
        self._server.register_completion_queue(self._queue)
        self._methods: dict[bytes, Method] = {}
        self._due = 0  # completions the queue still owes us
        self._stopping = False
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    # --- the grpc.Server methods this project uses -----------------------------------------
    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler]
    ) -> None:
        self._methods.update(methods_of({f"/{service}/{name}": h for name, h in handlers.items()}))

    def add_generic_rpc_handlers(self, handlers: tuple) -> None:
        """Handlers made by ``grpc.method_handlers_generic_handler`` (what generated code and
        grpc's health and reflection packages pass)."""
        for handler in handlers:
            table = getattr(handler, "_method_handlers", None)
            if not isinstance(table, dict):
                raise TypeError(
                    f"{type(handler).__name__}: only grpc.method_handlers_generic_handler "
                    "handlers can be served here"
                )
            self._methods.update(methods_of(table))

    def add_insecure_port(self, address: str) -> int:
        """The bound port (as ``grpc.Server``'s: RuntimeError when the address cannot be bound)."""
        from grpc._common import validate_port_binding_result

        return validate_port_binding_result(address, self._server.add_http2_port(address.encode()))

    def add_secure_port(self, address: str, credentials: grpc.ServerCredentials) -> int:
        from grpc._common import validate_port_binding_result

        port = self._server.add_http2_port(address.encode(), credentials._credentials)  # noqa: SLF001
        return validate_port_binding_result(address, port)

    def start(self) -> None:
        self._server.start()
        self._request_call()
        self._thread = threading.Thread(target=self._serve, name="bot-server", daemon=True)
        self._thread.start()

    def stop(self, grace: float | None) -> threading.Event:
        """Stop taking calls; cancel those still running at once (``grace`` None or 0) or
        after ``grace`` seconds. The event is set once the server has stopped."""
        with self._lock:
            if self._thread is None:  # never started: nothing to wait for (as grpc.Server)
                self._stopped.set()
                return self._stopped
            if not self._stopping:
                self._stopping = True
                self._due += 1
                self._server.shutdown(self._queue, _SHUTDOWN)
        if grace and self._stopped.wait(grace):
            return self._stopped
        with self._lock:
            if not self._stopped.is_set():  # the loop destroys the server under this lock
                self._server.cancel_all_calls()
        return self._stopped

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """As ``grpc.Server.wait_for_termination``: True if ``timeout`` ran out first, False
        once stopped (so the public server can take this one's place). Waits in short steps so
        Ctrl-C reaches the main thread."""
        end = None if timeout is None else time.monotonic() + timeout
        while not self._stopped.wait(0.25):
            if end is not None and time.monotonic() >= end:
                return True
        return False

    # --- the loop ----------------------------------------------------------------------------
    def _request_call(self) -> None:
        self._due += 1
        self._server.request_call(self._queue, self._queue, _REQUEST)

    def _start_batch(self, state: _Call, operations: tuple, tag: str) -> None:
        try:
            state.call.start_server_batch(operations, (tag, state))
        except Exception:  # noqa: BLE001 - a call the client already cancelled
            return
        self._due += 1

    def _serve(self) -> None:
        try:
            while True:
                event = self._queue.poll(time.time() + _POLL_S)
                if event.completion_type == self._cy.CompletionType.queue_timeout:
                    continue
                with self._lock:
                    self._due -= 1
                    if event.tag is _REQUEST:
                        self._on_request(event)
                    elif event.tag is not _SHUTDOWN:
                        tag, state = event.tag
                        if tag == "message":
                            self._on_message(state, event)
                    if self._stopping and self._due == 0:
                        break
        finally:
            with self._lock:
                self._server.destroy()
                self._stopped.set()

    def _on_request(self, event: Any) -> None:
        if not event.success:  # shutting down
            return
        if not self._stopping:
            self._request_call()
        method = self._methods.get(event.call_details.method)
        state = _Call(event.call, method, event.invocation_metadata)
        self._start_batch(state, (self._cy.ReceiveCloseOnServerOperation(_EMPTY),), "closed")
        if method is None:
            self._finish(state, None, grpc.StatusCode.UNIMPLEMENTED, "Method not found!")
            return
        if method.kind == "stream":
            state.requests = _Queue()
            state.replies = method.handler(state.requests, state.context)
        self._start_batch(state, (self._cy.ReceiveMessageOperation(_EMPTY),), "message")

    def _on_message(self, state: _Call, event: Any) -> None:
        data = event.batch_operations[0].message() if event.success else None
        method = state.method
        if data is None:
            if method.kind == "stream" and event.success:  # the client finished its stream
                self._finish(state, None, grpc.StatusCode.OK, "")
            return
        try:
            request = method.request_deserializer(data)
        except Exception:  # noqa: BLE001
            self._finish(state, None, grpc.StatusCode.INTERNAL, "Exception deserializing request!")
            return
        # The handler runs without the lock, so that stop() can cancel the call meanwhile.
        self._lock.release()
        try:
            if method.kind == "unary":
                reply = method.handler(request, state.context)
            else:
                state.requests.items.append(request)
                reply = next(state.replies, None)
            code, details = state.context.code, state.context.details
        except _Abort:
            reply, code, details = None, state.context.code, state.context.details
        except Exception as exc:  # noqa: BLE001 - grpc.server's answer (and log line) to a failing handler
            _LOG.exception("Exception calling application: %s", exc)
            # UNKNOWN as grpc.server answers, with the text a dial-in bot sends for the same
            # exception (referee.protocol.bot_error_text): one fault reads the same on every route.
            reply, code, details = None, grpc.StatusCode.UNKNOWN, bot_error_text(exc)
        finally:
            self._lock.acquire()
        if code is not grpc.StatusCode.OK:
            self._finish(state, None, code, details)
        elif method.kind == "unary":
            self._finish(state, reply, code, details)
        elif reply is None:  # the handler's stream ended
            self._finish(state, None, grpc.StatusCode.OK, "")
        else:
            operations = (self._cy.SendMessageOperation(method.response_serializer(reply), _EMPTY),)
            if not state.sent_metadata:
                state.sent_metadata = True
                operations = (self._cy.SendInitialMetadataOperation(None, _EMPTY), *operations)
            self._start_batch(state, operations, "sent")
            self._start_batch(state, (self._cy.ReceiveMessageOperation(_EMPTY),), "message")

    def _finish(self, state: _Call, reply: Any, code: grpc.StatusCode, details: str) -> None:
        operations = []
        if not state.sent_metadata:
            state.sent_metadata = True
            operations.append(self._cy.SendInitialMetadataOperation(None, _EMPTY))
        if reply is not None:
            operations.append(
                self._cy.SendMessageOperation(state.method.response_serializer(reply), _EMPTY)
            )
        operations.append(
            self._cy.SendStatusFromServerOperation(None, code.value[0], details.encode(), _EMPTY)
        )
        self._start_batch(state, tuple(operations), "sent")


def new_server() -> BotServer | grpc.Server:
    """The bot's server, not yet bound: a :class:`BotServer` while the ``cygrpc_server``
    shortcut is on, else the public ``grpc.server`` (answering a failing handler with the same
    status and text, see :class:`SameErrorText`)."""
    if shortcuts.enabled(SHORTCUT.name):
        return BotServer()
    from concurrent import futures

    return grpc.server(
        futures.ThreadPoolExecutor(max_workers=PUBLIC_WORKERS), interceptors=(SameErrorText(),)
    )


class SameErrorText(grpc.ServerInterceptor):
    """On the public server, a unary handler that raises is answered UNKNOWN with
    :func:`~referee.protocol.bot_error_text` (``KeyError: 'x'``), as :class:`BotServer` and a
    dial-in bot answer, rather than grpc's ``Exception calling application: 'x'`` (no type)."""

    def intercept_service(
        self, continuation: Callable, handler_call_details: grpc.HandlerCallDetails
    ) -> Any:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_streaming or handler.response_streaming:
            return handler
        inner = handler.unary_unary

        def behaviour(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return inner(request, context)
            except Exception as exc:
                if context.code() is not None:  # the handler aborted: its own status stands
                    raise
                _LOG.exception("Exception calling application: %s", exc)
                context.abort(grpc.StatusCode.UNKNOWN, bot_error_text(exc))

        return grpc.unary_unary_rpc_method_handler(
            behaviour,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
