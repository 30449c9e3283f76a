"""gRPC's I/O stack is chosen before grpc is imported, in every process of the project (the
referee, the workers, and the hosted bots, which import ``arena.sdk``), and an operator's own
``GRPC_EXPERIMENTS`` wins (referee/grpc_io.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee import grpc_io

ROOT = Path(__file__).resolve().parents[2]
SHOW = "import os, {module}, grpc; print(os.environ.get('GRPC_EXPERIMENTS', ''))"


def _experiments(module: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    out = subprocess.run([sys.executable, "-c", SHOW.format(module=module)], cwd=ROOT,
                         env={**clean, **env}, capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


@pytest.mark.parametrize("module", ["arena.sdk", "referee.match", "arena.workers.tasks"])
def test_every_entry_point_sets_the_stack_before_grpc_is_imported(module: str) -> None:
    if grpc_io.grpcio_version() > grpc_io.MEASURED_UP_TO:
        pytest.skip("a newer grpcio than measured runs on its defaults")
    assert _experiments(module) == grpc_io.EXPERIMENTS


def test_an_operator_s_own_setting_is_kept() -> None:
    assert _experiments("arena.sdk", GRPC_EXPERIMENTS="-event_engine_dns") == "-event_engine_dns"


def test_a_grpcio_newer_than_measured_keeps_its_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRPC_EXPERIMENTS", raising=False)
    newer = (grpc_io.MEASURED_UP_TO[0], grpc_io.MEASURED_UP_TO[1] + 1)
    monkeypatch.setattr(grpc_io, "grpcio_version", lambda: newer)
    grpc_io.choose_io()
    assert "GRPC_EXPERIMENTS" not in os.environ
    monkeypatch.setattr(grpc_io, "grpcio_version", lambda: grpc_io.MEASURED_UP_TO)
    grpc_io.choose_io()
    assert os.environ["GRPC_EXPERIMENTS"] == grpc_io.EXPERIMENTS
