"""Certificates made by the tests themselves (``openssl`` CLI): a CA, and a server certificate
it signs for ``localhost`` and ``127.0.0.1``; nothing is shared with the machine's trust store."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


@dataclass(frozen=True)
class Certs:
    ca: Path
    cert: Path
    key: Path
    #: A second CA that signed nothing here: trusting it must not be enough.
    other_ca: Path


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def _make_ca(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN=Arena test {name}",
             "-keyout", str(key), "-out", str(cert), cwd=folder)
    return key, cert


def make_certs(folder: Path) -> Certs:
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca = _make_ca(folder, "ca")
    _, other_ca = _make_ca(folder, "other-ca")
    key, csr, cert = folder / "server.key", folder / "server.csr", folder / "server.pem"
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(csr),
             cwd=folder)
    ext = folder / "san.ext"
    ext.write_text("subjectAltName = DNS:localhost, IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
             "-days", "2", "-extfile", str(ext), "-out", str(cert), cwd=folder)
    return Certs(ca=ca, cert=cert, key=key, other_ca=other_ca)
