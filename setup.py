"""Build hook: compile ``protos/`` into ``referee/_proto`` whenever the package is built.

Kept to the single job setuptools cannot do declaratively; everything else is in pyproject.toml.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.develop import develop
from setuptools.command.egg_info import egg_info

ROOT = Path(__file__).resolve().parent


def _compile() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from arena.build_protos import build
    finally:
        sys.path.pop(0)
    build(ROOT)


class BuildPy(build_py):
    def run(self) -> None:
        _compile()
        super().run()


class Develop(develop):
    def run(self) -> None:
        _compile()
        super().run()


class EggInfo(egg_info):
    def run(self) -> None:
        _compile()
        super().run()


setup(cmdclass={"build_py": BuildPy, "develop": Develop, "egg_info": EggInfo})
