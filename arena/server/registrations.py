"""``Register`` capped per client: an account costs nothing to make, so a cap counted per
account (dial-in streams, new bots per hour, pending qualifications) is only a cap if one client
cannot make accounts at will (issue 26: "a cap is only a cap if the attacker cannot multiply the
thing it counts").

A client is what every other per-client cap calls one (:class:`arena.server.streams.ClientAddresses`):
the peer's IP address, IPv6 by its /64, and behind a trusted proxy (``ARENA_TRUSTED_PROXIES``)
the address that proxy names. Each new account is a row of ``registrations`` (client, time) in
the database, so the count survives a restart of the server and is shared by several API
servers; rows older than the hour are pruned by the next registration. Past
``ServerConfig.registrations_per_client_per_hour`` the call is refused RESOURCE_EXHAUSTED with a
message (and a ``google.rpc.RetryInfo``) saying when the oldest counted account leaves the hour.

A retried registration with the same request id (arena.server.idempotency) answers for the same
account and counts nothing; an invalid or taken name counts nothing either (its transaction is
rolled back). One process decides one registration at a time (:attr:`RegistrationCap.lock`,
held until the account is committed), so parallel calls of one client cannot all pass a count
that none of them has raised yet; two API servers may each let one through at the same instant.
"""

from __future__ import annotations

import math
import threading
from datetime import datetime, timedelta

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.db import utcnow
from arena.db.accounts import CLIENT_CHARS, Registration
from arena.server.errors import ApiError

#: The rolling window of the cap.
WINDOW = timedelta(hours=1)


class RegistrationCap:
    """At most ``per_hour`` new accounts per client in any rolling hour (module docstring)."""

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        #: Held from the count to the commit of the new account (see the module docstring).
        self.lock = threading.Lock()

    def admit(self, session: Session, client: str, now: datetime | None = None) -> None:
        """Count one more account of ``client`` in ``session``'s transaction (the caller holds
        :attr:`lock` until it commits), or refuse it with RESOURCE_EXHAUSTED."""
        now = now or utcnow()
        key = client[:CLIENT_CHARS]
        since = now - WINDOW
        session.execute(delete(Registration).where(Registration.created_at < since))
        made = list(session.scalars(select(Registration.created_at).where(
            Registration.client == key, Registration.created_at >= since).order_by(Registration.created_at)))
        if len(made) >= self.per_hour:
            free_at = made[len(made) - self.per_hour] + WINDOW
            wait_s = max(1, math.ceil((free_at - now).total_seconds()))
            raise ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many new accounts from {key.removeprefix('addr:')}: {len(made)} in the last hour "
                f"(limit {self.per_hour} per client per hour); try again in {_minutes(wait_s)} "
                f"(at {free_at:%H:%M} UTC), or sign in with an account you already have",
                (error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=wait_s)),),
            )
        session.add(Registration(client=key, created_at=now))


def _minutes(seconds: int) -> str:
    minutes = math.ceil(seconds / 60)
    return "1 min" if minutes <= 1 else f"{minutes} min"
