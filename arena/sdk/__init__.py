"""Write a bot as one function and serve it with one call: what a bot author imports.

    from arena.sdk import serve_bot

    def act(observation, legal_options):
        return legal_options[0].id

    if __name__ == "__main__":
        serve_bot(act)

Or, with no port open at all, dial in to an Arena server (:func:`connect_bot`).

The SDK runs without the platform's server, database and queue, and without numpy (contracts in
pyproject.toml, checked by ``lint-imports`` and tests/test_layers.py): a bot's sandbox holds only
what a bot needs. Its modules: :mod:`arena.sdk.bot` (the servicer, the server, ``serve_bot``),
:mod:`arena.sdk.connect` (dialling in), :mod:`arena.sdk.bot_server` (the one-thread gRPC server),
:mod:`arena.sdk.client` (the Arena service's Python client), :mod:`arena.sdk.auth` (API tokens).
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.sdk.bot import (
    ADDRESS_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
    ActFn,
    BotServicer,
    HookFn,
    Option,
    Turn,
    make_server,
    sample_state,
    serve_bot,
)

__all__ = [
    "ADDRESS_ENV",
    "TLS_CERT_ENV",
    "TLS_KEY_ENV",
    "ActFn",
    "BotServicer",
    "HookFn",
    "Option",
    "Turn",
    "connect_bot",
    "make_server",
    "sample_state",
    "serve_bot",
    "serve_policy",
]

#: Where :func:`serve_policy` lives: the toolkit environments, a layer above the SDK.
_ENVS_SERVE = "arena.envs.serve"


def connect_bot(act: ActFn, server: str, token: str, name: str, game: str, **options: Any) -> None:
    """Dial in to the Arena server ``server`` (``host:port``) as bot ``name`` of ``game`` with the
    owner's API ``token``, and play the matches it serves until Ctrl+C (``start``, ``end``,
    ``tls``, ``ca``: :func:`arena.sdk.connect.connect_bot`). Imported when called: a bot that
    only serves does not load the dial-in stream."""
    from arena.sdk.connect import connect_bot as connect

    connect(act, server, token, name, game, **options)


def serve_policy(policy: Any, game: str, observation: str = "vector", **serve: Any) -> None:
    """Serve a policy trained on the toolkit environments' spaces (docs/environments.md):
    :func:`arena.envs.serve.serve_policy`, under the name bot folders have always imported.

    The environments need numpy and import the SDK, so the SDK does not import them: the
    function is looked up by name when called, as the CLI attaches the web layer."""
    importlib.import_module(_ENVS_SERVE).serve_policy(policy, game, observation, **serve)
