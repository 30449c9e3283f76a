"""The SDK hands an ``act`` with a third parameter the decision's clock (``Turn``)."""

from __future__ import annotations

import time

import orjson

from arena.sdk import BotServicer, Turn
from referee._proto import bot_pb2


def _request() -> bot_pb2.ActRequest:
    return bot_pb2.ActRequest(
        match_id="m", decision=7, observation_json=orjson.dumps({"seat": 1}),
        options=[bot_pb2.Option(id="a", label="A"), bot_pb2.Option(id="b", label="B")],
        time_left_ms=1300, bank_left_ms=300, prompt="pick",
    )


def test_a_three_argument_act_gets_the_clock():
    seen: list[Turn] = []

    def act(observation, legal_options, turn):
        seen.append(turn)
        return legal_options[-1].id

    before = time.perf_counter()
    reply = BotServicer(act).Act(_request(), None)
    assert reply.option_id == "b"
    turn = seen[0]
    assert (turn.decision, turn.time_left_ms, turn.bank_left_ms, turn.prompt) == (7, 1300, 300, "pick")
    assert before <= turn.received <= time.perf_counter()
    # Half of the decision's own 1000 ms, minus 100 ms kept for the reply: 400 ms; never the bank.
    assert abs(turn.deadline(0.5, 100) - (turn.received + 0.4)) < 1e-9
    assert turn.deadline(2.0) == turn.received + 1.0  # a share above 1 would spend the bank
    assert turn.deadline(0.01, 500) == turn.received


def test_a_two_argument_act_is_called_as_before():
    def act(observation, legal_options):
        return legal_options[0].id, f"seat {observation['seat']}"

    reply = BotServicer(act).Act(_request(), None)
    assert (reply.option_id, reply.comment) == ("a", "seat 1")
