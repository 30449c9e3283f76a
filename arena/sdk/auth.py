"""API tokens: made once, shown once, stored only as a hash.

A token is 32 random bytes (URL-safe base64) behind a readable prefix, so it is unguessable and
a leaked database does not leak tokens: only SHA-256 digests are stored. Because tokens are
random (not passwords a person chose), a fast hash is enough and lets the server find the user
by an indexed column in one query. Clients send it as ``authorization: Bearer <token>``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

TOKEN_PREFIX = "arena_"
METADATA_KEY = "authorization"


def new_token() -> str:
    """A fresh API token for a user."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the database keeps instead of the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)


def token_from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token a call carries, or None. Accepts ``Bearer <token>`` or the bare token."""
    for key, value in metadata or ():
        if key.lower() != METADATA_KEY:
            continue
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        value = value.strip()
        if value.lower() == "bearer":
            return None
        if value.lower().startswith("bearer "):
            value = value[7:].strip()
        return value or None
    return None


def auth_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata a client attaches to a call that needs ``token``."""
    return ((METADATA_KEY, f"Bearer {token}"),)
