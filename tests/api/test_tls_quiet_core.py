"""A TLS mismatch is one clear line, not gRPC's C-core log (issue 29): ``arena`` with TLS against a
plaintext port, or against a certificate it does not trust, printed gRPC's own
``I… ssl_transport_security.cc…] Handshake failed with error SSL_ERROR_SSL …`` above its error,
and a TLS server printed one per plaintext client (referee/grpc_io.py ``quiet_core_logs``).

Real processes: ``arena serve`` and the ``arena`` client in subprocesses, whose environment has
no ``GRPC_VERBOSITY`` (this process's own is set by importing referee)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import grpc

from arena.db.session import DATABASE_ENV
from arena.workers.live import BROKER_ENV
from tests.api.certs import make_certs, needs_openssl
from tests.api.processes import ROOT, free_port

pytestmark = needs_openssl

CORE_LINE = "ssl_transport_security"
#: Older grpcio releases (1.60, the oldest allowed, among them) log the failed handshake at ERROR
#: severity (``E1204 … Handshake failed with fatal error``), which GRPC_VERBOSITY=ERROR keeps:
#: that one core line is all those releases print above ours. Newer ones log it as INFO.
CORE_ERROR = re.compile(r"^E\d{4} [^\n]*ssl_transport_security[^\n]*Handshake failed[^\n]*\n", re.M)


def _ours(stderr: str) -> str:
    """``stderr`` without an ERROR-severity core line of the handshake (see CORE_ERROR)."""
    return CORE_ERROR.sub("", stderr)


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GRPC_VERBOSITY", BROKER_ENV, "ARENA_TOKEN")
    }
    env.update(
        {
            DATABASE_ENV: f"sqlite:///{tmp / 'arena.sqlite3'}",
            "ARENA_DATA_DIR": str(tmp / "data"),
            "XDG_CONFIG_HOME": str(tmp / "config"),
            **extra,
        }
    )
    return env


def _arena(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
    )


def _serve(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(server: subprocess.Popen[str]) -> str:
    server.terminate()
    return server.communicate(timeout=30)[1]


def test_tls_against_plaintext_and_an_untrusted_certificate_are_one_line_each(
    tmp_path: Path,
) -> None:
    certs = make_certs(tmp_path / "certs")
    port = free_port()
    plain_env = _env(tmp_path / "plain")
    server = _serve(plain_env, port)
    try:
        grpc.channel_ready_future(grpc.insecure_channel(f"localhost:{port}")).result(timeout=60)
        wrong = _arena(
            "leaderboard",
            "toy",
            "--server",
            f"localhost:{port}",
            "--tls-ca",
            str(certs.ca),
            env=plain_env,
        )
    finally:
        server_err = _stop(server)
    assert wrong.returncode == 1
    assert _ours(wrong.stderr).count("\n") == 1, wrong.stderr  # one line, ours
    assert (
        _ours(wrong.stderr).startswith("Error: cannot reach the arena server")
        and "drop --tls" in wrong.stderr
    )
    assert CORE_LINE not in _ours(wrong.stderr) + _ours(server_err)

    port = free_port()
    tls_env = _env(tmp_path / "tls", ARENA_TLS_CERT=str(certs.cert), ARENA_TLS_KEY=str(certs.key))
    server = _serve(tls_env, port)
    try:
        channel = grpc.secure_channel(
            f"localhost:{port}", grpc.ssl_channel_credentials(certs.ca.read_bytes())
        )
        grpc.channel_ready_future(channel).result(timeout=60)
        channel.close()
        untrusted = _arena(
            "leaderboard", "toy", "--server", f"localhost:{port}", "--tls", env=tls_env
        )
        plaintext = _arena("leaderboard", "toy", "--server", f"localhost:{port}", env=tls_env)
        time.sleep(0.5)  # the server's side of the failed handshakes is written by now
    finally:
        server_err = _stop(server)
    assert untrusted.returncode == 1 and _ours(untrusted.stderr).count("\n") == 1, untrusted.stderr
    assert "--tls-ca" in untrusted.stderr
    assert plaintext.returncode == 1 and _ours(plaintext.stderr).count("\n") == 1, plaintext.stderr
    assert CORE_LINE not in _ours(untrusted.stderr) + _ours(plaintext.stderr)
    assert CORE_LINE not in _ours(server_err), server_err


def test_an_operator_who_asks_for_the_core_log_gets_it(tmp_path: Path) -> None:
    certs = make_certs(tmp_path / "certs")
    port = free_port()
    env = _env(tmp_path)
    server = _serve(env, port)
    try:
        grpc.channel_ready_future(grpc.insecure_channel(f"localhost:{port}")).result(timeout=60)
        loud = _arena(
            "leaderboard",
            "toy",
            "--server",
            f"localhost:{port}",
            "--tls-ca",
            str(certs.ca),
            env={**env, "GRPC_VERBOSITY": "INFO"},
        )
    finally:
        _stop(server)
    assert loud.returncode == 1 and CORE_LINE in loud.stderr  # GRPC_VERBOSITY is left as set
