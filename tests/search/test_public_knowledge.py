"""Samplers respect everything public: cards everyone saw go into a hand stay in that hand.

Cards are told apart by the id every face-up card shows (two Sabotage cards are two ids).

Each test plays random games, follows the public event lines (what every seat reads) with its
own small tracker, and at many decision points checks (a) that the observation's list of
publicly known cards agrees with the tracker, and (b) that every one of 100 samples —
``arena.sdk.sample_state`` and the search's ``determinise`` of it — holds those cards in the
right hand and shows the seat exactly the observation it was given (so nothing else the seat
knows is contradicted).
"""

from __future__ import annotations

import random
import re

import orjson
import pytest

from arena.sdk import sample_state
from referee import registry
from referee.engine import audience_of

SAMPLES = 100


def _wire(obs: dict) -> dict:
    return orjson.loads(orjson.dumps(obs))


# ---------------------------------------------------------------------------- Orbital
# star-scrappers-orbital.ko.txt 게임 라운드 » 카드 구입: a market card is bought face up, so every
# seat sees which card went into the buyer's hand (게임 준비 2: the market is face up); the same
# holds for Insider Contact's free market card and a Robot Arm taking the face-up top of the pile.
_BUY = re.compile(r"^(.+) buys (.+) from the market for \d+ MC$")
_TAKE = re.compile(r"^(.+) takes (.+) from the market$")
_SALVAGE = re.compile(r"^(.+) takes from the discard pile 1 card\(s\)$")
_BUILD = re.compile(r"^(.+) builds (.+) \(\w+\) for \d+ MC$")
_PLAY = re.compile(r"^(.+) plays (.+)$")
# 5. 카드 뽑기 (hand limit) and Quiet Year: a discard face down — nobody else knows which card left
_SECRET = re.compile(r"^(.+) discards a card( over the hand limit)?$")


def _public_ids(view: dict) -> tuple[set[int], set[int], set[int]]:
    """Card ids face up in the market, on the discard pile and in the stations."""
    market = {m["card"]["id"] for m in view["market"]}
    pile = {c["id"] for c in view["discard"] if c is not None}
    built = {m["card"]["id"] for s in view["stations"] for m in s["modules"] if "id" in m["card"]}
    return market, pile, built


class OrbitalTracker:
    """Card ids every seat knows to be in each hand, from public event lines and the public
    view before and after each step (every card shown face up carries its id)."""

    def __init__(self, st) -> None:
        from referee.orbital import rules

        self.who = {rules.name(st, a): a for a in range(st.actors)}
        self.known: list[list[int]] = [[] for _ in range(st.actors)]
        # after a secret discard the known cards may have left: at most gone[a] of maybe[a] did
        self.maybe: list[list[int]] = [[] for _ in range(st.actors)]
        self.gone = [0] * st.actors
        self.reshuffled = False  # once the pile became the deck, a card that left may be anywhere
        self._resync: dict | None = None

    def follow(self, lines: list[str], before: dict, after: dict) -> None:
        market0, pile0, built0 = _public_ids(before)
        market1, pile1, built1 = _public_ids(after)
        shown = (pile1 - pile0) | (built1 - built0)  # cards that left a hand face up
        if "the discard pile is shuffled into a new deck" in lines:
            # an event played face up may have gone into the new deck at once, so the view
            # after the step no longer shows which copy was played: take the pile's state from
            # the public view (ids are on every face-up card; only which copy is ambiguous)
            self._resync = after
        for line in lines:
            if audience_of(line) is not None:
                continue  # a line some seats may not read
            if m := _BUY.match(line) or _TAKE.match(line):
                taken = [c for c in market0 - market1 if _name(c) == m[2]]
                assert len(taken) == 1, line
                self.known[self.who[m[1]]].append(taken[0])
            elif m := _SALVAGE.match(line):
                top = before["discard"][-1] if before["discard"] else None
                if top is not None:  # the face-up top card of the pile
                    self.known[self.who[m[1]]].append(top["id"])
            elif m := _BUILD.match(line) or _PLAY.match(line):
                if m[1] not in self.who:
                    continue
                a = self.who[m[1]]
                left = [c for c in self.known[a] if c in shown and _name(c) == m[2]]
                if left:
                    self.known[a].remove(left[0])
                elif maybe := [c for c in self.maybe[a] if c in shown and _name(c) == m[2]]:
                    self.maybe[a].remove(maybe[0])  # it had not left in secret after all
                    self.gone[a] = min(self.gone[a], len(self.maybe[a]))
            elif m := _SECRET.match(line):
                if m[1] in self.who:
                    a = self.who[m[1]]
                    self.maybe[a] += self.known[a]
                    self.known[a] = []
                    self.gone[a] = min(self.gone[a] + 1, len(self.maybe[a]))
            elif line == "the discard pile is shuffled into a new deck":
                self.reshuffled = True
        if self._resync is not None:
            raw = self._resync["raw"]
            self.known = [list(k) for k in raw["known_hands"]]
            self.maybe = [list(k) for k in raw["maybe_hands"]]
            self.gone = list(raw["maybe_gone"])
            self._resync = None


def _name(card: int) -> str:
    from referee.orbital.data import CARD_NAME

    return CARD_NAME[card]


def _orbital_configs() -> list[tuple[int, str]]:
    return [(p, v) for p, v in registry.get_spec("orbital").configurations if v in ("standard", "bots-1")]


@pytest.mark.parametrize(("players", "variant"), _orbital_configs())
def test_orbital_samples_keep_publicly_bought_cards(players, variant):
    cls = registry.get_game("orbital")
    checked_points = known_seen = maybe_seen = 0
    for seed in range(2):
        r = random.Random(f"orbital:{players}:{variant}:{seed}")
        st = cls.new(players, seed, variant)
        tracker = OrbitalTracker(st)
        while not st.is_over():
            mover = st.to_move()
            if r.random() < 0.08:
                seat = mover if r.random() < 0.5 else r.randrange(players)
                obs = _wire(st.observation(seat))
                for a in range(st.actors):
                    assert sorted(c["id"] for c in obs["known_hands"][a]) == sorted(tracker.known[a])
                    assert [c["id"] for c in obs["known_hands"][a]] == obs["raw"]["known_hands"][a]
                    assert sorted(obs["raw"]["maybe_hands"][a]) == sorted(tracker.maybe[a])
                    assert obs["raw"]["maybe_gone"][a] == obs["maybe_gone"][a] == tracker.gone[a]
                others = [a for a in range(st.actors) if a != seat]
                known_seen += sum(len(obs["raw"]["known_hands"][a]) for a in others)
                maybe_seen += sum(len(tracker.maybe[a]) for a in others)
                for k in range(SAMPLES):
                    sampled = sample_state("orbital", obs, seed=k)
                    dealt = sampled.determinise(seat, k * 7919 + 1)
                    for s in (sampled, dealt):
                        for a in others:
                            assert set(tracker.known[a]) <= set(s.hands[a]), (a, s.hands[a])
                            # all but at most gone[a] of the maybe cards are still in the hand ...
                            kept = [c for c in tracker.maybe[a] if c in s.hands[a]]
                            assert len(kept) >= len(tracker.maybe[a]) - tracker.gone[a], (a, s.hands[a])
                            if not tracker.reshuffled:  # ... and the others face down on the pile
                                for c in set(tracker.maybe[a]) - set(kept) - set(obs["raw"]["market"]):
                                    assert c in s.discard or c in s.hands[seat], (c, a)
                    assert _wire(sampled.observation(seat)) == obs
                    assert _wire(dealt.observation(seat)) == obs
                checked_points += 1
            before = _wire(st.public_view())
            lines = st.apply(r.choice(st.option_ids()))
            tracker.follow(lines, before, _wire(st.public_view()))
    assert checked_points >= 10
    assert known_seen > 0, "no publicly known card in another hand at any checked point"
    assert maybe_seen > 0, "no card that may have left another hand in secret at any checked point"


# ---------------------------------------------------------------------------- Black Angel
# black-angel.ko.txt 액션: 약탈자 격파 (녹색): the Ravagers destroyed are taken into the hand
# ("격파한 카드는 자신의 손패에 추가합니다"), and they lay face up on the action (게임 준비 8:
# "액션에 공개하여 놓습니다"), so every seat knows them; one leaves when its seat plays a Ravager
# face down (the engine plays the hand's last Ravager, and destroyed ones come in last).
_DESTROY = re.compile(r"^seat (\d+) destroys (\d+) Ravager\(s\) at action (\d+)$")
_PLAY_RAVAGER = re.compile(r"^seat (\d+) plays a Ravager card face down at \w+$")


class BlackAngelTracker:
    """Ravager ids every seat knows to be in each hand, from public lines and the public view."""

    def __init__(self, players: int) -> None:
        self.known: list[list[int]] = [[] for _ in range(players)]

    def follow(self, lines: list[str], before: dict) -> None:
        for line in lines:
            if audience_of(line) is not None:
                continue
            if m := _DESTROY.match(line):
                taken = [r["id"] for r in before["actions"][int(m[3]) - 1]["ravagers"]]
                assert len(taken) == int(m[2]), line
                self.known[int(m[1])].extend(taken)
            elif (m := _PLAY_RAVAGER.match(line)) and self.known[int(m[1])]:
                self.known[int(m[1])].pop()


def _black_angel_configs() -> list[tuple[int, str]]:
    return [(p, v) for p, v in registry.get_spec("black_angel").configurations if p >= 2]


@pytest.mark.parametrize(("players", "variant"), _black_angel_configs())
def test_black_angel_samples_keep_destroyed_ravagers(players, variant):
    cls = registry.get_game("black_angel")
    checked_points = known_seen = 0
    for seed in range(3):
        r = random.Random(f"black_angel:{players}:{variant}:{seed}")
        st = cls.new(players, seed, variant)
        tracker = BlackAngelTracker(players)
        while not st.is_over():
            if r.random() < 0.2:
                seat = st.to_move() if r.random() < 0.5 else r.randrange(players)
                obs = _wire(st.observation(seat))
                for p in range(players):
                    assert [x["id"] for x in obs["seats"][p]["known_ravagers"]] == tracker.known[p]
                    assert obs["raw"]["known_r"][p] == tracker.known[p]
                others = [p for p in range(players) if p != seat]
                known_seen += sum(len(tracker.known[p]) for p in others)
                for k in range(SAMPLES):
                    sampled = sample_state("black_angel", obs, seed=k)
                    dealt = sampled.determinise(seat, k * 7919 + 1)
                    for s in (sampled, dealt):
                        for p in others:
                            known = tracker.known[p]
                            # in the hand, and last: the next Ravager played is the last destroyed
                            assert s.hand_r[p][len(s.hand_r[p]) - len(known):] == known, (p, s.hand_r[p])
                    assert _wire(sampled.observation(seat)) == obs
                    assert _wire(dealt.observation(seat)) == obs
                checked_points += 1
            before = _wire(st.public_view())
            lines = st.apply(r.choice(st.option_ids()))
            tracker.follow(lines, before)
    assert checked_points >= 10
    assert known_seen > 0, "no destroyed Ravager in another hand at any checked point"


# ---------------------------------------------------------------------------- Solenia
# solenia.ko.txt 게임 준비 5 and 8, 게임 진행: every seat has its own 16 ship cards, draws its hand
# from its own pile, and plays them face up onto the boards or discards them face up; no card
# goes into a hand face up, so what is public about a hidden hand is which of the seat's 16
# cards are still in its hand and pile together. Every sample must deal exactly those.
def _solenia_unplayed(st, s: int) -> list[int]:
    from referee.solenia.state import P_CELL

    held = st.hand[s] + st.deck[s]
    if st.phase == P_CELL and st.cur == s and st.sel_card >= 0:
        held = held + [st.sel_card]  # chosen, not yet placed: still hidden from the others
    return sorted(held)


def _solenia_configs() -> list[tuple[int, str]]:
    """One configuration per player count, a different variant each."""
    configs = [(p, v) for p, v in registry.get_spec("solenia").configurations if p >= 2]
    return [(p, v) for i, (p, v) in enumerate(configs) if i % 4 == 0]


@pytest.mark.parametrize(("players", "variant"), _solenia_configs())
def test_solenia_samples_deal_each_seat_its_own_unplayed_cards(players, variant):
    from referee.solenia.data import DECK_SIZE

    cls = registry.get_game("solenia")
    checked_points = 0
    for seed in range(2):
        r = random.Random(f"solenia:{players}:{variant}:{seed}")
        st = cls.new(players, seed, variant)
        while not st.is_over():
            if r.random() < 0.08:
                seat = st.to_move() if r.random() < 0.5 else r.randrange(players)
                obs = _wire(st.observation(seat))
                others = [s for s in range(players) if s != seat]
                # the public derivation: all 16 minus the seat's cards on the boards and discarded
                raw = obs["raw"]
                for s in others:
                    shown = [raw["card"][i] for i, o in enumerate(raw["owner"]) if o == s] + raw["out_cards"][s]
                    assert sorted(set(range(DECK_SIZE)) - set(shown)) == _solenia_unplayed(st, s)
                for k in range(SAMPLES):
                    sampled = sample_state("solenia", obs, seed=k)
                    dealt = sampled.determinise(seat, k * 7919 + 1)
                    for x in (sampled, dealt):
                        for s in others:
                            assert _solenia_unplayed(x, s) == _solenia_unplayed(st, s)
                    assert _wire(sampled.observation(seat)) == obs
                    assert _wire(dealt.observation(seat)) == obs
                checked_points += 1
            st.apply(r.choice(st.option_ids()))
    assert checked_points >= 10
