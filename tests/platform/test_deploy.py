"""docker-compose.yml and the Dockerfile, validated as far as possible without a Docker engine.

The same topology runs as plain processes in test_celery_redis.py (a real Redis, two
``arena worker`` processes, a tournament submitted from another process).
"""

from __future__ import annotations

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
        assert env["ARENA_DATABASE_URL"].startswith("postgresql+psycopg2://")
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


def test_docker_compose_config_when_a_client_is_installed() -> None:
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker client")
    probe = subprocess.run([docker, "compose", "version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("docker client without the compose plugin")
    out = subprocess.run([docker, "compose", "-f", str(COMPOSE), "config", "--quiet"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
