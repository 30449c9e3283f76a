"""docker-compose.yml and the Dockerfile, validated as far as possible without a Docker engine.

The same topology runs as plain processes in test_celery_redis.py (a real Redis, two
``arena worker`` processes, a tournament submitted from another process).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
import yaml
from click.testing import CliRunner

from arena.cli import cli
from tests.platform.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
ARENA_SERVICES = {"server": "serve", "worker": "worker", "beat": "beat", "web": "web"}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_every_service_is_there_with_a_health_check(compose: dict) -> None:
    services = compose["services"]
    assert set(services) == {"redis", "postgres", *ARENA_SERVICES}
    for name, service in services.items():
        check = service.get("healthcheck", {}).get("test")
        assert check, f"{name} has no health check"


def test_arena_services_run_real_arena_commands(compose: dict) -> None:
    for name, command in ARENA_SERVICES.items():
        service = compose["services"][name]
        assert service["command"][0] == command
        assert command in cli.commands, f"`arena {command}` does not exist"
        env = service["environment"]
        # The database URL holds a password: a Docker secret, never in the compose file.
        assert "ARENA_DATABASE_URL" not in env
        assert env["ARENA_DATABASE_URL_FILE"] == "/run/secrets/database_url"
        assert "database_url" in service["secrets"]
        assert env["ARENA_BROKER_URL"].startswith("redis://redis:")
        deps = service["depends_on"]
        assert deps["redis"]["condition"] == deps["postgres"]["condition"] == "service_healthy"
        # The options given in the compose file are accepted by the real command.
        args = [command, *service["command"][1:], "--help"]
        assert CliRunner().invoke(cli, args).exit_code == 0, args


def test_volumes_are_declared_and_shared(compose: dict) -> None:
    declared = set(compose["volumes"])
    used = {
        v.split(":", 1)[0]
        for s in compose["services"].values()
        for v in s.get("volumes", [])
        if not v.startswith(("./", "/"))  # bind mounts (./tls) are host folders, not volumes
    }
    assert used == declared
    # The API serves TLS from the mounted ./tls (issue 11).
    server = compose["services"]["server"]
    assert "./tls:/etc/arena/tls:ro" in server["volumes"]
    assert server["environment"]["ARENA_TLS_CERT"].startswith("/etc/arena/tls/")
    for name in ARENA_SERVICES:  # uploaded bots are visible to the workers that play them
        assert "bots:/var/lib/arena" in compose["services"][name]["volumes"]
    assert compose["services"]["worker"]["deploy"]["replicas"] >= 2


def test_dockerfile_copies_what_exists() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for src in re.findall(r"^COPY (.+) \./", text, flags=re.M):
        for part in src.split():
            assert (ROOT / part).exists(), f"Dockerfile copies missing {part}"
    assert "bubblewrap" in text and 'ENTRYPOINT ["arena"]' in text


def _compose_client() -> list[str] | None:
    """``docker compose`` (the plugin) or ``docker-compose`` (e.g. Debian's package)."""
    docker = shutil.which("docker")
    if docker is not None:
        probe = subprocess.run([docker, "compose", "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_docker_compose_config_when_a_client_is_installed() -> None:
    client = _compose_client()
    if client is None:
        pytest.skip("no compose client (docker compose plugin or docker-compose)")
    out = subprocess.run([*client, "-f", str(COMPOSE), "config", "--quiet"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_the_plain_http_website_is_published_on_loopback_by_default(compose: dict) -> None:
    """The website speaks plain HTTP: compose publishes it on 127.0.0.1 unless the one documented
    switch (ARENA_WEB_BIND) names another interface; the TLS-only API port stays public."""
    (port,) = compose["services"]["web"]["ports"]
    assert port == "${ARENA_WEB_BIND:-127.0.0.1}:8080:5000"
    header = COMPOSE.read_text().split("x-arena:", 1)[0]
    assert "ARENA_WEB_BIND" in header, "the switch is documented at the top of the compose file"
    client = _compose_client()
    if client is None:
        return
    for env, host in (({}, "127.0.0.1"), ({"ARENA_WEB_BIND": "0.0.0.0"}, "0.0.0.0")):  # noqa: S104
        out = subprocess.run([*client, "-f", str(COMPOSE), "config"], capture_output=True, text=True,
                             cwd=ROOT, env={**{k: v for k, v in os.environ.items() if k != "ARENA_WEB_BIND"}, **env})
        assert out.returncode == 0, out.stderr
        web = yaml.safe_load(out.stdout)["services"]["web"]
        (published,) = web["ports"]
        if isinstance(published, str):
            assert published.startswith(f"{host}:8080:"), published
        else:
            assert (published.get("host_ip"), str(published["published"])) == (host, "8080"), published


CREDENTIALS_IN_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]+:[^/@\s]+@", re.I)


def test_no_secret_in_the_compose_file(compose: dict) -> None:
    """Passwords come from Docker secrets (files the operator creates), never from this file:
    no variable that holds a password, token or key itself (only ``*_FILE`` paths), and no URL
    with credentials anywhere in it."""
    text = COMPOSE.read_text()
    assert not CREDENTIALS_IN_URL.search(text), CREDENTIALS_IN_URL.search(text)
    for name, service in compose["services"].items():
        env = service.get("environment", {})
        for key, value in env.items():
            if re.search(r"PASSWORD|SECRET|TOKEN|_KEY$", key) and not key.endswith("_FILE"):
                assert str(value).startswith("/etc/arena/tls/"), (name, key)  # a path, not a value
            assert not CREDENTIALS_IN_URL.search(str(value)), (name, key)
    postgres = compose["services"]["postgres"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert set(compose["secrets"]) == {"database_url", "postgres_password", "relay_key"}
    assert (ROOT / "secrets" / "README.md").exists()


def test_relay_key_from_a_secret_file(tmp_path, monkeypatch) -> None:
    """The dial-in relay key, like the database URL, can come from a Docker secret file."""
    from referee import dialin_client

    secret = tmp_path / "relay_key"
    secret.write_text("k3y-from-a-file\n")
    monkeypatch.delenv("ARENA_RELAY_KEY", raising=False)
    monkeypatch.setenv("ARENA_RELAY_KEY_FILE", str(secret))
    assert dialin_client.relay_key() == "k3y-from-a-file"
    monkeypatch.setenv("ARENA_RELAY_KEY_FILE", str(tmp_path / "missing"))
    with pytest.raises(RuntimeError, match="ARENA_RELAY_KEY_FILE"):
        dialin_client.relay_key()


def test_only_the_worker_runs_as_root(compose: dict) -> None:
    """server, web and beat run as the image's unprivileged user (the server sends qualification
    matches to the workers); the worker alone keeps root for the sandbox (a uid and cgroup per
    bot), with a comment saying so, and alone gets the namespace privileges."""
    services = compose["services"]
    for name in ("server", "web", "beat"):
        assert services[name]["user"] == "arena", name
        assert "cap_add" not in services[name] and "security_opt" not in services[name], name
    assert "useradd --system --uid 10001" in (ROOT / "Dockerfile").read_text()  # the image's user
    assert "user" not in services["worker"]
    assert services["worker"]["cap_add"] == ["SYS_ADMIN"]
    worker_block = COMPOSE.read_text().split("\n  worker:\n", 1)[1].split("\n  beat:\n", 1)[0]
    assert "keeps root" in worker_block and "see referee/sandbox.py" in worker_block


def test_the_worker_health_check_uses_the_heartbeat_file_and_stops_gracefully(compose: dict) -> None:
    worker = compose["services"]["worker"]
    assert "worker_healthy" in " ".join(worker["healthcheck"]["test"])
    assert worker["stop_grace_period"] == "10m"


def test_database_url_from_a_secret_file(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    from arena.db.session import database_url

    secret = tmp_path / "database_url"
    secret.write_text("postgresql+psycopg2://arena:s3cret@db:5432/arena\n")
    monkeypatch.delenv("ARENA_DATABASE_URL", raising=False)
    monkeypatch.setenv("ARENA_DATABASE_URL_FILE", str(secret))
    assert database_url() == "postgresql+psycopg2://arena:s3cret@db:5432/arena"
    monkeypatch.setenv("ARENA_DATABASE_URL_FILE", str(tmp_path / "missing"))
    with pytest.raises(RuntimeError, match="ARENA_DATABASE_URL_FILE"):
        database_url()
