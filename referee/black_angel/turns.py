"""Turn order and rounds (rulebook [4] 게임 진행 and [5] 게임 종료).

A turn is sequence A or sequence B. When the end is triggered the round is finished and one
more round is played; the game then ends with scoring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.black_angel import data as D
from referee.black_angel.decisions import register

if TYPE_CHECKING:
    from referee.black_angel.state import BlackAngelState


def is_final_turn(s: BlackAngelState) -> bool:
    return s.end_trig and s.round == s.last_round


def begin_turn(s: BlackAngelState) -> None:
    s.phase = "turn"
    s.ctx = {}


def end_turn(s: BlackAngelState) -> None:
    """Hand limit, then the next seat (Hal plays right after you in solo), then round end."""
    p = s.seat
    if len(s.hand_m[p]) > D.HAND_LIMIT:
        s.phase = "hand_limit"
        s.ctx = {}
        return
    if s.solo:
        from referee.black_angel.hal import hal_turn

        hal_turn(s)
        _end_round(s)
        return
    if p + 1 < s.players:
        s.seat = p + 1
        begin_turn(s)
        return
    _end_round(s)


def _end_round(s: BlackAngelState) -> None:
    if s.end_trig and s.round >= s.last_round:
        s.over = True
        s.phase = "over"
        s.ctx = {}
        for p in range(s.players):  # debris on tiles goes back to storage (rulebook [5] 알림)
            s.deb[p] += sum(s.gdeb[p])
            s.gdeb[p] = [0] * 9
        s.log.append("the game is over")
        return
    s.round += 1
    s.seat = 0
    begin_turn(s)


def _turn_options(s: BlackAngelState) -> list[tuple[str, str]]:
    from referee.black_angel.sequence_a import can_sequence_a

    out = []
    if can_sequence_a(s, s.seat):
        out.append(("A", "sequence A: play a card, use a die, draw a card"))
    out.append(("B", "sequence B: reroll, reset your board, advance the Black Angel"))
    if len(out) == 1 and is_final_turn(s):
        out.append(("pass", "skip your final turn instead of sequence B"))
    return out


def _turn_apply(s: BlackAngelState, oid: str) -> None:
    if oid == "A":
        from referee.black_angel.sequence_a import begin_sequence_a

        s.last_seq = "A"
        begin_sequence_a(s)
    elif oid == "B":
        from referee.black_angel.sequence_b import begin_sequence_b

        s.last_seq = "B"
        begin_sequence_b(s)
    else:
        s.last_seq = "B"
        s.log.append(f"seat {s.seat} skips the final turn")
        end_turn(s)


def _hand_limit_options(s: BlackAngelState) -> list[tuple[str, str]]:
    seen = []
    for mid in sorted(set(s.hand_m[s.seat])):
        seen.append((f"discard:{mid}", f"discard mission {mid} ({D.MISSION[mid]['colour']})"))
    return seen


def _hand_limit_apply(s: BlackAngelState, oid: str) -> None:
    mid = int(oid.split(":")[1])
    s.hand_m[s.seat].remove(mid)
    s.m_disc[D.MISSION_COLOUR[mid]].append(mid)
    s.log.append(f"seat {s.seat} discards a mission over the hand limit")
    end_turn(s)


register("turn", "choose sequence A or B", _turn_options, _turn_apply)
register("hand_limit", "more than 6 missions in hand: discard one", _hand_limit_options, _hand_limit_apply)
register("over", "the game is over", lambda s: [], lambda s, o: None)
