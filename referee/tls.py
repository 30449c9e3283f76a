"""TLS for every gRPC port the project opens: the Arena API, a remote bot, a client's channel.

Certificates are PEM files. A server needs its certificate chain and private key; a client
needs nothing more than ``tls`` when the server's certificate is signed by a public authority
(the system's roots are used), or the CA file (``--tls-ca`` / ``ARENA_TLS_CA``) for a
self-made one. Mistakes (a missing file, a key without a certificate, a file that is not PEM)
raise :class:`TlsError` with one line that says which file and what is wrong.

It lives in the referee, the lowest layer that opens such a channel (to a bot at
``tls://host:port``); the platform's server and clients use it from here.
"""

from __future__ import annotations

import os
from pathlib import Path

import grpc

#: Client side: the CA certificate(s) that sign the server's certificate (PEM).
CA_ENV = "ARENA_TLS_CA"
#: Client side: use TLS even without a CA file (the system's roots then).
TLS_ENV = "ARENA_TLS"
#: Address prefix of a remote bot reached over TLS: ``tls://host:port``.
TLS_SCHEME = "tls://"
#: The referee's CA file for remote bots' certificates (default: the system's roots).
BOT_CA_ENV = "ARENA_BOT_TLS_CA"


class TlsError(ValueError):
    """A TLS setting is wrong; the message says which file and why."""


def _read_pem(path: Path | str, what: str, marker: bytes) -> bytes:
    path = Path(path).expanduser()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsError(f"cannot read the TLS {what} {str(path)!r}: {exc.strerror or exc}") from None
    if marker not in data:
        raise TlsError(f"the TLS {what} {str(path)!r} is not a PEM file (no '{marker.decode()}' line)")
    return data


def server_credentials(cert: Path | str | None, key: Path | str | None) -> grpc.ServerCredentials | None:
    """Credentials for a TLS port from a certificate chain and key, or None when neither is set."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        missing = "certificate (--tls-cert)" if cert is None else "private key (--tls-key)"
        raise TlsError(f"TLS needs both a certificate and its private key; the {missing} is missing")
    chain = _read_pem(cert, "certificate", b"-----BEGIN CERTIFICATE")
    private = _read_pem(key, "private key", b"PRIVATE KEY-----")
    return grpc.ssl_server_credentials([(private, chain)])


def channel_credentials(ca: Path | str | None = None) -> grpc.ChannelCredentials:
    """Client credentials trusting ``ca`` (PEM), or the system's roots when it is None."""
    roots = _read_pem(ca, "CA file", b"-----BEGIN CERTIFICATE") if ca else None
    return grpc.ssl_channel_credentials(root_certificates=roots)


def env_ca() -> Path | None:
    value = os.environ.get(CA_ENV, "").strip()
    return Path(value).expanduser() if value else None


def env_tls() -> bool:
    return os.environ.get(TLS_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def open_channel(
    address: str, tls: bool = False, ca: Path | str | None = None, options: list[tuple[str, object]] | None = None
) -> grpc.Channel:
    """A channel to ``address``: TLS when ``tls`` or a CA file is given, plaintext otherwise."""
    if tls or ca:
        return grpc.secure_channel(address, channel_credentials(ca), options=options or [])
    return grpc.insecure_channel(address, options=options or [])
