"""Shared bits of the environment tests: they need the ``envs`` extra (CI installs it)."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason='the envs extra is not installed: pip install -e ".[envs]"')
