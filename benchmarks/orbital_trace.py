"""Behaviour fingerprint of the Orbital engine: record random games, then check a later engine
plays them identically.

Why: engine speed-ups must not change a single option id, label, event line, observation or
result. ``record`` plays ``--games`` random games spread over every configuration and writes,
per game, a digest per decision (the legal options with labels, the chosen id, its audience, the
event lines with their audiences) plus, every ``--every`` decisions, digests of every seat's
observation, the spectator and public views, ``to_json``, a clone's and a determinised copy's
``to_json`` and a state rebuilt from an observation; and the result at the end. ``check``
replays the same games and reports the first decision where anything differs.

    python -m benchmarks.orbital_trace record /tmp/orbital-trace.json
    python -m benchmarks.orbital_trace check /tmp/orbital-trace.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

from referee.orbital.state import OrbitalState
from referee.rng import Rng


def _h(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _events(lines: list[str]) -> list[Any]:
    return [[str(e), list(getattr(e, "audience", None) or [])] for e in lines]


def play(players: int, variant: str, seed: int, every: int) -> dict[str, Any]:
    """One random game: per-decision digests and sampled full-state digests."""
    st = OrbitalState.new(players, seed, variant)
    pick = Rng(seed * 7919 + 17)
    steps: list[str] = [_h(_events(st.opening_events()))]
    samples: dict[str, str] = {}
    n = 0
    while not st.is_over():
        opts = st.legal_options()
        choice = opts[pick.below(len(opts))].id
        seat = st.to_move()
        row: list[Any] = [seat, st.decision_prompt(), [(o.id, o.label) for o in opts], choice,
                          st.option_audience(choice), st.fallback_option()]
        if n % every == 0:
            obs = [st.observation(s) for s in range(players)]
            samples[str(n)] = _h([
                obs, st.spectator_view(), st.public_view(), st.to_json(), st.clone().to_json(),
                st.determinise(seat, n).to_json(), st.determinise((seat + 1) % players, n + 1).to_json(),
                OrbitalState.from_observation(obs[seat], n).to_json(),
            ])
        row.append(_events(st.apply(choice)))
        steps.append(_h(row))
        n += 1
    res = st.result().to_json()
    return {"config": [players, variant], "seed": seed, "steps": steps, "samples": samples,
            "result": res, "final": _h([st.to_json(), st.spectator_view()])}


def games(total: int) -> list[tuple[int, str, int]]:
    configs = OrbitalState.spec.configurations
    return [(p, v, 1000 + k) for k in range(total // len(configs) + 1) for p, v in configs][:total]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "check"))
    ap.add_argument("path")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--every", type=int, default=23, help="full-state digests every N decisions")
    args = ap.parse_args(argv)
    if args.mode == "record":
        rows = [play(p, v, s, args.every) for p, v, s in games(args.games)]
        with open(args.path, "w", encoding="utf-8") as f:
            json.dump({"every": args.every, "games": rows}, f)
        print(f"recorded {len(rows)} games, {sum(len(r['steps']) for r in rows)} decisions")
        return 0
    with open(args.path, encoding="utf-8") as f:
        ref = json.load(f)
    bad = 0
    for want in ref["games"]:
        p, v = want["config"]
        got = play(p, v, want["seed"], ref["every"])
        if got == want:
            continue
        bad += 1
        first = next((i for i, (a, b) in enumerate(zip(got["steps"], want["steps"], strict=False)) if a != b), None)
        sample = next((k for k in want["samples"] if got["samples"].get(k) != want["samples"][k]), None)
        print(f"DIFF {p} {v} seed {want['seed']}: first step {first}, first sample {sample}, "
              f"lengths {len(got['steps'])}/{len(want['steps'])}, result same: {got['result'] == want['result']}")
    print(f"checked {len(ref['games'])} games: {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
