"""Under CI, every real part the suite relies on must be there, so nothing is silently skipped.

On a developer's machine a missing Redis, PostgreSQL, bubblewrap or Chromium skips the tests
that need it (with the reason); in CI (``CI=true``, set by the CI runner) that would hide them,
so this module fails instead.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT_DIR = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    os.environ.get("CI", "").lower() not in ("1", "true", "yes"),
    reason="checks the CI machine only (CI=true)",
)


def test_bubblewrap_is_installed() -> None:
    assert shutil.which("bwrap"), "bubblewrap is missing: .ci/run must install it"


def test_the_unprivileged_referee_tests_can_make_a_user() -> None:
    for tool in ("useradd", "setpriv", "unshare"):
        assert shutil.which(tool), f"{tool} is missing: .ci/run must install it"


def test_chromium_is_installed() -> None:
    assert os.path.exists("/usr/bin/chromium"), "chromium is missing: .ci/run must install it"


def test_redis_answers() -> None:
    import redis

    assert redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_timeout=3).ping()
    assert shutil.which("redis-server"), "redis-server is needed for the private-broker tests"


def test_postgresql_answers() -> None:
    from tests.platform.conftest import _pg_admin

    conn, _user = _pg_admin()
    conn.close()


def test_openssl_is_installed() -> None:
    assert shutil.which("openssl"), "openssl is missing (the TLS tests make certificates with it): .ci/run must install it"


def test_node_and_the_kit_packages_are_installed() -> None:
    assert shutil.which("node"), "node is missing (the Node starter kit tests run it): .ci/run must install nodejs"
    assert (ROOT_DIR / "starter_kits" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(), (
        "the Node kit's npm packages are missing: .ci/run must run npm ci in starter_kits/node"
    )


def test_buf_is_installed() -> None:
    # .ci/run installs it from npm; tests/test_contract.py would otherwise skip the buf checks.
    assert (ROOT_DIR / ".ci" / "tools" / "node_modules" / ".bin" / "buf").exists() or shutil.which("buf"), (
        "buf is missing: .ci/run installs it with npm (nodejs, npm from Debian)"
    )
