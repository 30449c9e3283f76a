"""Player-facing text is player language (issue 15, item 4): no designer notes, no shorthand.

Every option label, decision prompt and event line of many random games in every variant and
player count is scanned; designer notes (what the rulebook prints, which entries are designed,
readings) belong in RULES_NOTES.md, not in what a player reads.
"""

from __future__ import annotations

import random
import re

from referee.solenia.state import SoleniaState

#: Words and shapes that only a designer's note or an engine's shorthand would use.
NOTE = re.compile(
    r"rulebook|printed|prints|designed|design|second copy|eighth|engine|reading|interpret"
    r"|the [A-D] tile|region x\d|\bx\d\b|\(s\)|\b1 (points|stars|cells|resources)\b|\b[A-D]: ",
    re.IGNORECASE,
)


def _texts(players: int, variant: str, seed: int) -> list[str]:
    st = SoleniaState.new(players, seed, variant)
    rng = random.Random(seed)
    out = [str(line) for line in st.opening_events()]
    while not st.is_over():
        out.append(st.decision_prompt())
        out += [o.label for o in st.legal_options()]
        out += [str(line) for line in st.apply(rng.choice(st.option_ids()))]
    return out


def test_no_designer_notes_in_labels_or_events(full_run: bool) -> None:
    seeds = range(40 if full_run else 8)
    bad: dict[str, str] = {}
    scanned = 0
    for variant in ("summer", "winter", "winter-tech"):
        for players in (1, 2, 3, 4):
            for seed in seeds:
                for text in _texts(players, variant, seed):
                    scanned += 1
                    if NOTE.search(text):
                        bad.setdefault(NOTE.search(text).group(0), text)  # type: ignore[union-attr]
    assert scanned > 10_000
    assert not bad, bad


def test_the_scan_catches_the_old_notes() -> None:
    for old in ("C: each day supply tile completed (the rulebook prints 'night' for both C and D)",
                "A: end: 2 points per completed day supply tile (the B tile of the pair is printed)",
                "eighth level-1 tile: the rulebook prints seven level-1 effects for eight tiles; a second copy",
                "P1 recovers <1> (region x1): 1 points", "the supply ship moves 1 cell(s)"):
        assert NOTE.search(old), old


def test_every_technology_tile_label_is_offered_in_the_draft() -> None:
    # each of the 24 tiles' texts appears as a draft label somewhere, so the scan covers them all
    from referee.solenia.data import TECH_TEXT

    labels: set[str] = set()
    for seed in range(60):
        st = SoleniaState.new(4, seed, "winter-tech")
        labels.update(o.label for o in st.legal_options())
    joined = " | ".join(labels)
    assert all(text in joined for text in TECH_TEXT), [t for t in TECH_TEXT if t not in joined]
    assert not NOTE.search(joined)
