"""Users and who is calling: registration, token checks, the organiser role."""

from __future__ import annotations

import contextlib
import re

import grpc
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.db import session_scope
from arena.db.accounts import ROLE_ORGANISER, ROLE_USER, ApiRequest, User
from arena.quoting import shorten
from arena.sdk.auth import hash_token, new_token, token_from_metadata
from arena.server.errors import ApiError, denied, invalid, not_found
from arena.server.registrations import RegistrationCap

#: Matched with fullmatch: ``$`` would also match before a final newline ("carol\n").
USER_NAME = re.compile(r"[A-Za-z0-9_-]{3,32}")
ROLES = (ROLE_USER, ROLE_ORGANISER)


def check_user_name(name: str) -> str:
    if not USER_NAME.fullmatch(name or ""):
        raise invalid(f"user name {shorten(name)!r} is not valid: use 3-32 letters, digits, '_' or '-'")
    if name.lower() == "house":  # arena.intake.house.HOUSE_OWNER: its bots are the scale's references
        raise invalid("user name 'house' is reserved for the house bots and the solo automata")
    if name.lower() == "local":  # the operator's command-line bots, exempt from the author rule
        raise invalid("user name 'local' is reserved for the bots the operator enters from the command line")
    return name


def rotate_token(user: User, url: str | None = None) -> tuple[User, str]:
    """Give ``user`` a new token and forget the old one (only its hash was kept): the old token
    stops working with this call. Returns the user and the new token, shown only here."""
    token = new_token()
    with session_scope(url) as s:
        row = s.get(User, user.id)
        row.token_hash = hash_token(token)
        s.flush()
        s.expunge(row)
    return row, token


def register_user(name: str, url: str | None = None, request_hash: str | None = None,
                  cap: RegistrationCap | None = None, client: str = "") -> tuple[User, str]:
    """Create a user; returns it with its token (the only moment the token exists in clear).

    With ``request_hash`` (a client request id's hash, see arena.server.idempotency) the id is
    recorded in the same transaction, and a retry of the same registration answers for the same
    user with a fresh token instead of ALREADY_EXISTS.

    With ``cap`` (the ``Register`` call; not the operator's commands) the new account counts
    against ``client``'s registrations of the hour, in the same transaction: a refused or failed
    registration counts nothing, a retry answered above counts nothing again."""
    check_user_name(name)
    if request_hash is not None:
        with session_scope(url) as s:
            seen = s.scalar(select(ApiRequest.user_id).where(
                ApiRequest.call == "register", ApiRequest.scope == name, ApiRequest.request_hash == request_hash))
            user = s.get(User, seen) if seen is not None else None
            if user is not None:
                s.expunge(user)
        if user is not None:
            return rotate_token(user, url)
    token = new_token()
    try:
        with cap.lock if cap is not None else contextlib.nullcontext(), session_scope(url) as s:
            if s.scalar(select(User.id).where(User.name == name)) is not None:
                raise ApiError(grpc.StatusCode.ALREADY_EXISTS, f"user name {name!r} is taken")
            if cap is not None:
                cap.admit(s, client)
            user = User(name=name, role=ROLE_USER, token_hash=hash_token(token))
            s.add(user)
            s.flush()
            if request_hash is not None:
                s.add(ApiRequest(call="register", scope=name, request_hash=request_hash, user_id=user.id))
                s.flush()
            s.expunge(user)
    except IntegrityError:
        raise ApiError(grpc.StatusCode.ALREADY_EXISTS, f"user name {name!r} is taken") from None
    return user, token


def find_user(session: Session, token: str | None) -> User | None:
    if not token:
        return None
    return session.scalar(select(User).where(User.token_hash == hash_token(token)))


def caller(context: grpc.ServicerContext, url: str | None = None, required: bool = True) -> User | None:
    """The user whose token the call carries; UNAUTHENTICATED when it is required and absent/wrong."""
    token = token_from_metadata(context.invocation_metadata())
    if token is None:
        if not required:
            return None
        raise ApiError(
            grpc.StatusCode.UNAUTHENTICATED,
            "this call needs an API token: send metadata 'authorization: Bearer <token>' "
            "(get a token with `arena register NAME`)",
        )
    with session_scope(url) as s:
        user = find_user(s, token)
        if user is not None:
            s.expunge(user)
    if user is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "the API token is not valid (unknown or revoked)")
    return user


def require_organiser(user: User) -> None:
    if user.role != ROLE_ORGANISER:
        raise denied(
            f"user {user.name!r} is not an organiser; only organisers run tournaments and ladders "
            "(the server operator grants it with `arena organiser NAME`)"
        )


def set_role(name: str, role: str, url: str | None = None) -> User:
    """Give a user a role (the server operator's command, not a gRPC call)."""
    if role not in ROLES:
        raise invalid(f"unknown role {shorten(role)!r}; roles: {', '.join(ROLES)}")
    with session_scope(url) as s:
        user = s.scalar(select(User).where(User.name == name))
        if user is None:
            raise not_found(f"no user named {shorten(name)!r}")
        user.role = role
        s.flush()
        s.expunge(user)
    return user
