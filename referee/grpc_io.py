"""gRPC's I/O stack for this project's processes, chosen by measurement before grpc is imported.

Why: in recent grpcio releases a channel and a server do their socket work on gRPC's
EventEngine threads, and the calling thread hands each call over to them and back. Here that
hand-over is most of the cost: the referee makes one short unary call per decision to a hosted
bot on a Unix socket, and the bot answers it. Measured on grpcio 1.85 with random bots (the
platform overhead part of ``arena bench tournament``, same matches A/B), with the client and
server I/O done by the calling threads (the ``event_engine_client`` and
``event_engine_listener`` experiments off: gRPC's previous, long-standing I/O stack) the
worker's threads beside the match loop burnt ~3 ms of CPU per match instead of ~10-12, the
bots ~30 ms instead of ~37, and the bots' answers came back ~5 ms a match sooner.

gRPC reads ``GRPC_EXPERIMENTS`` once, when it is first imported, so this runs from the package
``__init__`` of ``referee`` (which ``arena`` imports first as well). An operator's own
``GRPC_EXPERIMENTS`` is left as it is. Only grpcio versions this was measured on get it: a later
release may drop the experiment (and log about an unknown one), so a newer grpcio runs on its
defaults until it is measured again (``MEASURED_UP_TO``).
"""

from __future__ import annotations

import os
import re
from importlib.util import find_spec
from pathlib import Path

#: the newest grpcio (major, minor) the setting was measured on; the project's oldest grpcio
#: (1.60) has both experiments too
MEASURED_UP_TO = (1, 85)
#: gRPC experiments switched off (a leading "-" disables one)
EXPERIMENTS = "-event_engine_client,-event_engine_listener"


def grpcio_version() -> tuple[int, int] | None:
    """grpcio's (major, minor), from its ``dist-info`` folder beside the ``grpc`` package.

    Read without importing grpc (that is what must not happen yet) and without
    ``importlib.metadata``, whose import alone cost ~25 ms — paid by every process that imports
    ``referee``, each hosted bot's launch included."""
    spec = find_spec("grpc")
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    for info in site.glob("grpcio-*.dist-info"):
        found = re.fullmatch(r"grpcio-(\d+)\.(\d+)\b.*\.dist-info", info.name)
        if found:
            return int(found[1]), int(found[2])
    return None


def choose_io() -> None:
    """Set ``GRPC_EXPERIMENTS`` for this process (and its children) unless already set, and
    :func:`quiet_core_logs`."""
    quiet_core_logs()
    if "GRPC_EXPERIMENTS" in os.environ:
        return
    version = grpcio_version()
    if version is not None and version <= MEASURED_UP_TO:
        os.environ["GRPC_EXPERIMENTS"] = EXPERIMENTS


def quiet_core_logs() -> None:
    """gRPC's C core logs errors only (``GRPC_VERBOSITY=ERROR``) unless the operator chose.

    Why: with ``GRPC_VERBOSITY`` unset, recent grpcio releases print the core's INFO lines on
    stderr, such as ``I1204 … ssl_transport_security.cc:2563] Handshake failed with error
    SSL_ERROR_SSL: … WRONG_VERSION_NUMBER`` whenever a TLS client meets a plaintext port or a
    certificate it does not trust. ``arena`` then printed that line above its own one-line error,
    which already says what failed and what to check (``arena.sdk.client.unreachable_hint``), and a
    TLS server printed one per plaintext probe. The failure itself still reaches the caller as
    the call's status. ``GRPC_VERBOSITY=INFO`` (or ``DEBUG``) brings the lines back. Older
    grpcio (1.60) logs that handshake line as an ERROR, which stays."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
