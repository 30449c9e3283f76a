"""A bidirectional gRPC stream whose messages are waited for by the caller's own thread.

grpc's public streaming call (``channel.stream_stream``) hands every outgoing message to a
thread of its own (the one that drains the request iterator) and every incoming one over from
the channel's spin thread: two thread switches per exchange, which on the dial-in route cost
more than the messages themselves. :class:`DirectStream` is instead a *segregated* call
(``cygrpc``: what grpc's own blocking unary calls and single-threaded unary-stream calls use):
the call has a completion queue of its own, polled by the thread that waits in
:meth:`receive`. Sending starts the operation from the calling thread at once.

Used by the referee's relay stream (``referee/relay_stream.py``) and a dialling bot's
``ConnectBot`` stream (``arena/sdk_connect.py``). The private ``cygrpc`` API it rests on is
exercised by the dial-in tests (tests/api/test_dialin*.py).
"""

from __future__ import annotations

import collections
import itertools
import threading

import grpc
from grpc._common import CYGRPC_STATUS_CODE_TO_STATUS_CODE
from grpc._cython import cygrpc

#: Like ``wait_for_ready=True``: the stream waits for the channel to connect.
_WAIT_FOR_READY = cygrpc.InitialMetadataFlags.wait_for_ready | cygrpc.InitialMetadataFlags.wait_for_ready_explicitly_set
_RECEIVED = "received"
_STATUS = "status"


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

    def __init__(self, channel: grpc.Channel, path: str, metadata: tuple[tuple[str, str], ...]) -> None:
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
        with self._state:
            self._call = channel._channel.segregated_call(  # noqa: SLF001 - see the module docstring
                0, path.encode(), None, None, metadata, None, (
                    ((cygrpc.SendInitialMetadataOperation(metadata, _WAIT_FOR_READY),), "opened"),
                    ((cygrpc.ReceiveInitialMetadataOperation(0),), "headers"),
                    ((cygrpc.ReceiveStatusOnClientOperation(0),), _STATUS),
                ))
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
        if and_receive:
            tag: tuple[str, int] = ("exchanged", next(self._send_tags))
            operations = (cygrpc.SendMessageOperation(message, 0), cygrpc.ReceiveMessageOperation(0))
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
        with self.polling:
            while not self._inbox:
                if self.status is not None and not self._receiving:
                    return None
                with self._state:
                    if not self._receiving and self._call.operate((cygrpc.ReceiveMessageOperation(0),), _RECEIVED):
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
        event = self._call.next_event()
        tag = event.tag
        for operation in event.batch_operations:
            kind = operation.type()
            if kind == cygrpc.OperationType.receive_message:
                message = operation.message()
                if message is not None:
                    self._inbox.append(message)
            elif kind == cygrpc.OperationType.receive_status_on_client:
                code = CYGRPC_STATUS_CODE_TO_STATUS_CODE.get(operation.code(), grpc.StatusCode.UNKNOWN)
                details = operation.details()
                self.status = (code, details.decode("utf-8", "replace") if isinstance(details, bytes) else str(details or ""))
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

    def cancel(self, details: str = "cancelled", code: cygrpc.StatusCode = cygrpc.StatusCode.cancelled) -> None:
        """End the stream from any thread; a thread in :meth:`receive` wakes up with None."""
        self._call.cancel(code, details)

    def close(self) -> None:
        """Cancel the stream and release its queue (idempotent). Waits for a thread still in
        :meth:`receive` to return first."""
        self.cancel("closed")
        with self.polling:
            while self._poll():
                pass
