"""A bidirectional gRPC stream whose messages are waited for by the caller's own thread.

grpc's public streaming call (``channel.stream_stream``) hands every outgoing message to a
thread of its own (the one that drains the request iterator) and every incoming one over from
the channel's spin thread: two thread switches per exchange, which on the dial-in route cost
more than the messages themselves. :class:`DirectStream` is instead a *segregated* call
(``cygrpc``: what grpc's own blocking unary calls and single-threaded unary-stream calls use):
the call has a completion queue of its own, polled by the thread that waits in
:meth:`receive`. Sending starts the operation from the calling thread at once.

Used by the referee's relay stream (``referee/relay_stream.py``) and a dialling bot's
``ConnectBot`` stream (``arena/sdk/connect.py``), both through :func:`open_stream`.

``cygrpc`` and ``grpc._common`` are grpc's private API, so this is a *shortcut*
(:mod:`referee.shortcuts`, docs/shortcuts.md): ``cygrpc_stream``. When it is off (by
``ARENA_SHORTCUTS``, or because the installed grpcio is a release it was not tested with)
:func:`open_stream` returns a :class:`PublicStream` instead: the same interface over grpc's
public ``channel.stream_stream``, and the private modules are never imported. The dial-in tests
run both (tests/api/test_shortcuts_grpc.py).
"""

from __future__ import annotations

import collections
import itertools
import queue
import threading
from typing import Any

import grpc

from referee import shortcuts

SHORTCUT = shortcuts.register(
    shortcuts.Shortcut(
        name="cygrpc_stream",
        package="grpcio",
        tested=("1.85",),
        what="grpc._cython.cygrpc segregated calls and grpc._common status codes for the dial-in streams",
    )
)
_RECEIVED = "received"
_STATUS = "status"


def _cygrpc() -> Any:
    """grpc's private Cython layer, imported only when the shortcut runs (a grpcio without it
    still serves the public path)."""
    from grpc._cython import cygrpc

    return cygrpc


def open_stream(
    channel: grpc.Channel, path: str, metadata: tuple[tuple[str, str], ...]
) -> DirectStream | PublicStream:
    """A bidirectional stream of raw messages on ``channel``: a :class:`DirectStream` while the
    ``cygrpc_stream`` shortcut is on, else a :class:`PublicStream` (same interface)."""
    if shortcuts.enabled(SHORTCUT.name):
        return DirectStream(channel, path, metadata)
    return PublicStream(channel, path, metadata)


class StreamError(grpc.RpcError):
    """How the stream ended (a status other than OK, or OK before the caller expected it)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class DirectStream:
    """One open stream. :meth:`send` and :meth:`cancel` may be called from any thread;
    :meth:`receive` by one thread at a time (it polls the call's queue)."""

    def __init__(
        self, channel: grpc.Channel, path: str, metadata: tuple[tuple[str, str], ...]
    ) -> None:
        #: Held by the thread that polls the call's queue.
        self.polling = threading.Lock()
        #: Guards :attr:`_due` together with the operations that add to it (see :meth:`_operate`).
        self._state = threading.Lock()
        #: Tags of the operations the queue still owes an event for. Once it is empty cygrpc has
        #: destroyed the queue, which must then never be polled again.
        self._due: set[object] = set()
        self._inbox: collections.deque[bytes] = collections.deque()
        self._outbox: collections.deque[bytes] = collections.deque()
        self._sending = False  # a SendMessage is under way (one at a time on a call)
        self._receiving = False  # a ReceiveMessage is under way
        self._send_tags = itertools.count()
        #: (code, details) once the status has arrived.
        self.status: tuple[grpc.StatusCode, str] | None = None
        cygrpc = self._cygrpc = _cygrpc()
        from grpc._common import CYGRPC_STATUS_CODE_TO_STATUS_CODE

        self._status_codes: dict[Any, grpc.StatusCode] = CYGRPC_STATUS_CODE_TO_STATUS_CODE
        #: Like ``wait_for_ready=True``: the stream waits for the channel to connect.
        wait_for_ready = (
            cygrpc.InitialMetadataFlags.wait_for_ready
            | cygrpc.InitialMetadataFlags.wait_for_ready_explicitly_set
        )
        with self._state:
            self._call = channel._channel.segregated_call(  # noqa: SLF001 - see the module docstring
                0,
                path.encode(),
                None,
                None,
                metadata,
                None,
                (
                    ((cygrpc.SendInitialMetadataOperation(metadata, wait_for_ready),), "opened"),
                    ((cygrpc.ReceiveInitialMetadataOperation(0),), "headers"),
                    ((cygrpc.ReceiveStatusOnClientOperation(0),), _STATUS),
                ),
            )
            self._due.update(("opened", "headers", _STATUS))

    def send(self, message: bytes, and_receive: bool = False) -> None:
        """Queue ``message``; it goes at once unless another is still under way (it then goes
        when that one's completion is polled). A stream that has ended drops it: its
        :meth:`receive` says why. ``and_receive`` (a caller that waits for the answer next)
        starts the answer's ReceiveMessage in the same batch: one event for both."""
        with self._state:
            if self._sending:
                self._outbox.append(message)
                return
            self._start_send(message, and_receive and not self._receiving)

    def _start_send(self, message: bytes, and_receive: bool = False) -> None:
        """(``_state`` held.) Start one SendMessage (with a ReceiveMessage)."""
        cygrpc = self._cygrpc
        if and_receive:
            tag: tuple[str, int] = ("exchanged", next(self._send_tags))
            operations = (
                cygrpc.SendMessageOperation(message, 0),
                cygrpc.ReceiveMessageOperation(0),
            )
        else:
            tag = ("sent", next(self._send_tags))
            operations = (cygrpc.SendMessageOperation(message, 0),)
        if self._call.operate(operations, tag):
            self._due.add(tag)
            self._sending = True
            self._receiving = self._receiving or and_receive

    def receive(self) -> bytes | None:
        """The next message, or None once the stream has ended (see :attr:`status`). Blocks
        this thread until one of them happens."""
        cygrpc = self._cygrpc
        with self.polling:
            while not self._inbox:
                if self.status is not None and not self._receiving:
                    return None
                with self._state:
                    if not self._receiving and self._call.operate(
                        (cygrpc.ReceiveMessageOperation(0),), _RECEIVED
                    ):
                        self._due.add(_RECEIVED)
                        self._receiving = True
                if not self._poll():
                    return None
            return self._inbox.popleft()

    def _poll(self) -> bool:
        """(``polling`` held.) Take in the queue's next event; False when the call is over."""
        with self._state:
            if not self._due:
                if self.status is None:
                    self.status = (grpc.StatusCode.UNAVAILABLE, "the stream is closed")
                return False
        cygrpc = self._cygrpc
        event = self._call.next_event()
        tag = event.tag
        for operation in event.batch_operations:
            kind = operation.type()
            if kind == cygrpc.OperationType.receive_message:
                message = operation.message()
                if message is not None:
                    self._inbox.append(message)
            elif kind == cygrpc.OperationType.receive_status_on_client:
                code = self._status_codes.get(operation.code(), grpc.StatusCode.UNKNOWN)
                details = operation.details()
                self.status = (
                    code,
                    details.decode("utf-8", "replace")
                    if isinstance(details, bytes)
                    else str(details or ""),
                )
        with self._state:
            self._due.discard(tag)
            if tag == _RECEIVED:
                self._receiving = False
            elif isinstance(tag, tuple):  # a send completed: the next one may go
                self._sending = False
                if tag[0] == "exchanged":
                    self._receiving = False
                if self._outbox and self.status is None:
                    self._start_send(self._outbox.popleft())
        return True

    def error(self) -> StreamError:
        """The stream's end as an ``RpcError`` (call once :meth:`receive` returned None)."""
        code, details = self.status or (grpc.StatusCode.UNAVAILABLE, "the stream is closed")
        return StreamError(code, details)

    def cancel(self, details: str = "cancelled") -> None:
        """End the stream from any thread; a thread in :meth:`receive` wakes up with None."""
        self._call.cancel(self._cygrpc.StatusCode.cancelled, details)

    def close(self) -> None:
        """Cancel the stream and release its queue (idempotent). Waits for a thread still in
        :meth:`receive` to return first."""
        self.cancel("closed")
        with self.polling:
            while self._poll():
                pass


class PublicStream:
    """:class:`DirectStream`'s interface over grpc's public streaming call (the shortcut's way
    back): outgoing messages go through a queue that grpc's request thread drains, incoming
    ones are handed over from the channel's thread. Correct on any grpcio; slower by the two
    thread switches per exchange the module docstring describes."""

    def __init__(
        self, channel: grpc.Channel, path: str, metadata: tuple[tuple[str, str], ...]
    ) -> None:
        #: Held by the thread that waits in :meth:`receive` (one reader at a time, as DirectStream).
        self.polling = threading.Lock()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        #: (code, details) once the stream has ended.
        self.status: tuple[grpc.StatusCode, str] | None = None
        # No serializers: messages cross as the bytes the caller made.
        self._call = channel.stream_stream(path)(
            iter(self._outbox.get, None), metadata=metadata, wait_for_ready=True
        )

    def send(self, message: bytes, and_receive: bool = False) -> None:  # noqa: ARG002 - DirectStream's signature
        """Queue ``message`` for grpc's request thread (dropped once the stream has ended)."""
        if self.status is None:
            self._outbox.put(message)

    def receive(self) -> bytes | None:
        """The next message, or None once the stream has ended (see :attr:`status`)."""
        with self.polling:
            if self.status is not None:
                return None
            try:
                return next(self._call)
            except StopIteration:
                self.status = (grpc.StatusCode.OK, "")
            except grpc.RpcError as exc:
                self.status = (exc.code(), exc.details() or "")
            return None

    def error(self) -> StreamError:
        """The stream's end as an ``RpcError`` (call once :meth:`receive` returned None)."""
        code, details = self.status or (grpc.StatusCode.UNAVAILABLE, "the stream is closed")
        return StreamError(code, details)

    def cancel(self, details: str = "cancelled") -> None:  # noqa: ARG002 - the public cancel takes no text
        """End the stream from any thread; a thread in :meth:`receive` wakes up with None
        (status CANCELLED)."""
        self._call.cancel()

    def close(self) -> None:
        """Cancel the stream and end grpc's request thread (idempotent)."""
        self._outbox.put(None)
        self._call.cancel()
