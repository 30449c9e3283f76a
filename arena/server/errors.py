"""One way for every handler to refuse a call: raise :class:`ApiError`, get a gRPC status.

Handlers stay plain functions that raise; :func:`handle` turns an ApiError into the status and
message the client sees, a user mistake reported by the engine (ConfigError) into
INVALID_ARGUMENT, and anything unexpected into INTERNAL with the details only in the server log,
so the server keeps serving and a client never sees a traceback.

An ApiError may also carry machine-readable details (``google.rpc`` messages such as
``ErrorInfo`` and ``BadRequest``): they travel as a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer, which every gRPC language reads (Python: grpcio-status's
``rpc_status.from_call``), so a client can act on a refusal without parsing its message.

Messages quote a caller's input through :func:`arena.quoting.shorten`, and here every status
message is capped at :data:`MAX_MESSAGE_BYTES` of UTF-8 (gRPC percent-encodes it, up to three
times longer) and the details at :data:`MAX_DETAILS_BYTES`: a client accepts 8 KiB of trailers,
so an unbounded echo (a 10,000-character game name) would reach it as a transport error instead
of the refusal.

Before a handler runs, a request whose text fields hold a NUL character is refused with
INVALID_ARGUMENT: PostgreSQL cannot store or compare such a string, and the driver's ValueError
would otherwise be an INTERNAL on whichever call first passed it to a query.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import status_pb2
from sqlalchemy.exc import IntegrityError, OperationalError

from arena.quoting import ELLIPSIS, MAX_MESSAGE, shorten
from referee.engine import EngineError

log = logging.getLogger("arena.server")

F = TypeVar("F", bound=Callable[..., Any])


#: The ErrorInfo domain of this server's machine-readable error details.
ERROR_DOMAIN = "arena.tabletop"
STATUS_DETAILS_KEY = "grpc-status-details-bin"
#: Largest status message, in UTF-8 bytes (at most 3,000 once percent-encoded).
MAX_MESSAGE_BYTES = 1000
#: Largest serialised google.rpc.Status sent as details (base64: 2,732); a larger one is left
#: out, the code and message still go. Both together stay well inside the client's 8 KiB.
MAX_DETAILS_BYTES = 2048


class ApiError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str, details: tuple[Message, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def _abort(context: grpc.ServicerContext, exc: BaseException) -> None:
    """Refuse the call with ``exc``'s status, and its details (if any) as a google.rpc.Status."""
    code, message = _status_of(exc)
    details = exc.details if isinstance(exc, ApiError) else ()
    if details:
        status = status_pb2.Status(code=code.value[0], message=message)
        for detail in details:
            packed = any_pb2.Any()
            packed.Pack(detail)
            status.details.append(packed)
        blob = status.SerializeToString()
        if len(blob) <= MAX_DETAILS_BYTES:
            context.set_trailing_metadata(((STATUS_DETAILS_KEY, blob),))
        else:
            log.warning("status details of %d bytes left out of a %s refusal", len(blob), code.name)
    context.abort(code, message)


def invalid(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.NOT_FOUND, message)


def denied(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, message)


def _status_of(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message for ``exc``, the message bounded (see the module docstring)."""
    code, message = _unbounded_status_of(exc)
    return code, _bounded(message)


def _bounded(message: str) -> str:
    message = shorten(message, MAX_MESSAGE)
    raw = message.encode("utf-8", "replace")
    if len(raw) <= MAX_MESSAGE_BYTES:
        return message
    return raw[: MAX_MESSAGE_BYTES - len(ELLIPSIS.encode())].decode("utf-8", "ignore") + ELLIPSIS


def _unbounded_status_of(exc: BaseException) -> tuple[grpc.StatusCode, str]:
    if isinstance(exc, ApiError):
        return exc.code, exc.message
    if isinstance(exc, EngineError):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc)
    if isinstance(exc, IntegrityError):
        # Two calls raced for the same new name or number; the loser's transaction rolled back.
        return grpc.StatusCode.ABORTED, "a concurrent call changed the same thing first; try again"
    if isinstance(exc, OperationalError):
        log.warning("database unavailable: %s", exc)
        return grpc.StatusCode.UNAVAILABLE, "the database is busy or unreachable; try again shortly"
    log.exception("unexpected error in an Arena call")
    return grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); the server log has the details"


def _nul_field(message: Message, path: str = "") -> str | None:
    """The name of the first text field of ``message`` (nested ones too) holding a NUL, or None."""
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        single = isinstance(value, str | bytes | Message) or not hasattr(value, "__iter__")
        for item in (value,) if single else value:
            if isinstance(item, str) and "\x00" in item:
                return name
            if isinstance(item, Message) and (found := _nul_field(item, f"{name}.")):
                return found
    return None


def check_request(request: Any) -> None:
    """Refuse a request with a NUL character in any text field (see the module docstring)."""
    if isinstance(request, Message) and (field := _nul_field(request)):
        raise invalid(f"{field} contains a NUL character")


def handle(fn: F) -> F:
    """Wrap a unary handler ``fn(self, request, context)``."""

    @functools.wraps(fn)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            check_request(request)
            return fn(self, request, context)
        except Exception as exc:  # noqa: BLE001 - mapped to a status, see module docstring
            _abort(context, exc)

    return wrapper  # type: ignore[return-value]


def handle_stream(fn: F) -> F:
    """Wrap a server-streaming handler (a generator)."""

    @functools.wraps(fn)
    def wrapper(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            check_request(request)
            yield from fn(self, request, context)
        except Exception as exc:  # noqa: BLE001
            code, message = _status_of(exc)
            context.abort(code, message)

    return wrapper  # type: ignore[return-value]
