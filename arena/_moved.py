"""Old module names of the platform, still importable after issue #36 split arena/ into rooms.

``import arena.tasks`` (or any name below) gives the module at its new place, the same module
object (so a patch through either name patches both), with a DeprecationWarning naming the new
place. Written by the restructuring script from its mapping; docs/architecture.md has the rooms.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: Old dotted name -> new dotted name.
MOVED: dict[str, str] = {
    "arena.authors": "arena.intake.authors",
    "arena.bots": "arena.intake.bots",
    "arena.builtin_bots": "arena.intake.house_bots",
    "arena.celery_app": "arena.workers.celery_app",
    "arena.challenges": "arena.play.challenges",
    "arena.client": "arena.sdk.client",
    "arena.collusion": "arena.records.collusion",
    "arena.commands": "arena.cli",
    "arena.commands.author": "arena.cli.author",
    "arena.commands.challenge": "arena.cli.challenge",
    "arena.commands.client": "arena.cli.client",
    "arena.commands.collusion": "arena.cli.collusion",
    "arena.commands.connect": "arena.cli.connect",
    "arena.commands.fork": "arena.cli.fork",
    "arena.commands.games": "arena.cli.games",
    "arena.commands.listen": "arena.cli.listen",
    "arena.commands.play": "arena.cli.play",
    "arena.commands.server": "arena.cli.server",
    "arena.commands.tournament": "arena.cli.tournament",
    "arena.dialin": "arena.competition.dialin_presence",
    "arena.fork": "arena.records.fork",
    "arena.grpc_util": "arena.sdk.grpc_util",
    "arena.house": "arena.intake.house",
    "arena.human": "arena.play.human",
    "arena.ladder": "arena.competition.ladder",
    "arena.ladder_population": "arena.competition.ladder_population",
    "arena.migrations": "arena.db.migrations",
    "arena.migrations.env": "arena.db.migrations.env",
    "arena.migrations.versions": "arena.db.migrations.versions",
    "arena.qualification": "arena.intake.qualification",
    "arena.ratings": "arena.evaluation.ratings",
    "arena.recording": "arena.records.recording",
    "arena.redis_script": "arena.workers.redis_script",
    "arena.refusals": "arena.intake.refusals",
    "arena.schedule": "arena.competition.round_robin",
    "arena.sdk_connect": "arena.sdk.connect",
    "arena.sdk_server": "arena.sdk.bot_server",
    "arena.server.auth": "arena.sdk.auth",
    "arena.server.live": "arena.workers.live",
    "arena.server.live_table": "arena.workers.live_table",
    "arena.sprt": "arena.evaluation.sprt",
    "arena.sprt_runner": "arena.intake.sprt_runner",
    "arena.swiss": "arena.competition.swiss",
    "arena.tasks": "arena.workers.tasks",
    "arena.terminal": "arena.cli.terminal",
    "arena.tournaments": "arena.competition.tournaments",
    "arena.uploads": "arena.intake.uploads",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module at its new place."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {self.new}", DeprecationWarning, stacklevel=3)
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """The new module ran when it was imported."""


class _OldNames(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None):
        new = MOVED.get(name)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(name, _Alias(new))


# First: an old name must never be found as a file of another checkout (an editable install"s
# finder maps the whole package to its own folder); only the names above are answered here.
if not any(isinstance(f, _OldNames) for f in sys.meta_path):
    sys.meta_path.insert(0, _OldNames())
