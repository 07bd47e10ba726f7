"""The in-process bot itself (golfref/bots/scripted.py), without a referee: its reads, its clock, its brains.

A `ScriptedBot` must answer as a process would through `launch.StartedBot`: lines since the
latest send, silence as a timeout at the deadline (the virtual clock moved there), lines from
before a send set aside as unasked, an exit or a closed stdin as a process's. A game policy
behind `PolicyBrain` sees the very view the gate built: `seat_view_from_json` inverts
`SeatView.to_json` over random games of every preset.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from golfref.bots.framing import ReadStatus
from golfref.bots.launch import StartedBot
from golfref.bots.scripted import (
    Always,
    Answer,
    CloseStdin,
    CloseStdout,
    EchoBrain,
    Exit,
    NotUtf8,
    PolicyBrain,
    Ready,
    Script,
    ScriptedBot,
    Silent,
    Stderr,
    Think,
    VirtualClock,
)
from golfref.game.engine import Action, Game
from golfref.game.policies import GreedyPolicy
from golfref.game.rules import PRESETS, resolve_rules
from golfref.game.view import seat_view_from_json, view

HELLO = json.dumps({"type": "hello", "seat": 0})


def request(rid: int, legal: list[str] | None = None) -> str:
    """A request line, with just what the brains read."""
    return json.dumps({"type": "request", "id": rid, "legal": legal or ["stock", "discard"], "time_ms": 100})


def started(brain: Any, clock: VirtualClock | None = None) -> tuple[ScriptedBot, VirtualClock]:
    clock = clock or VirtualClock()
    bot = ScriptedBot(brain, seat=0, clock=clock)
    bot.start()
    return bot, clock


def test_a_scripted_bot_is_a_started_bot() -> None:
    bot: StartedBot = started(EchoBrain())[0]
    assert bot.sends == 0 and bot.stderr_text() == ""


def test_an_answer_comes_after_its_thinking_time_and_a_silence_times_out_at_the_deadline() -> None:
    bot, clock = started(Script(Ready(), [Think(250), Answer()], []))
    assert bot.send(HELLO)
    assert json.loads(bot.read_line(1.0).line or "")["type"] == "ready"
    assert clock() == 0.0
    assert bot.send(request(1))
    result = bot.read_line(clock() + 1.0)
    assert (result.status, json.loads(result.line or "")) == (ReadStatus.LINE, {"type": "answer", "id": 1,
                                                                                "action": "stock"})  # fmt: skip
    assert clock() == pytest.approx(0.25) and result.elapsed == pytest.approx(0.25) and result.sends == 2
    assert bot.send(request(2))
    timeout = bot.read_line(clock() + 2.0)
    assert timeout.status is ReadStatus.TIMEOUT and clock() == pytest.approx(2.25), "no wait, the clock moved"


def test_a_late_line_arrives_on_the_clock_and_lines_before_a_send_are_unasked() -> None:
    bot, clock = started(Script(Ready(), [Think(3000), Answer()], then=Silent()))
    bot.send(HELLO)
    bot.read_line(1.0)
    bot.send(request(1))
    assert bot.read_line(clock() + 1.0).status is ReadStatus.TIMEOUT
    assert bot.take_unasked() == [], "the answer is not written yet"
    clock.advance_to(5.0)
    bot.send(request(2))  # the late answer came before this send: it cannot answer it
    unasked = bot.take_unasked()
    assert [json.loads(r.line or "")["id"] for r in unasked] == [1] and unasked[0].sends == 2


def test_what_answers_the_latest_send_waits_for_a_read() -> None:
    """A process needs the referee's wait to reply: a reaction is not unasked output of the send it answers."""
    bot, _ = started(Script([Ready(), Answer("stock", id=0)]))
    bot.send(HELLO)
    assert bot.take_unasked() == []
    assert bot.read_line(1.0).status is ReadStatus.LINE
    assert [json.loads(r.line or "")["id"] for r in bot.take_unasked()] == [0]


def test_exits_and_closed_pipes_are_a_processes() -> None:
    bot, clock = started(Script(Ready(), [Stderr("bye\n"), Exit(3)]))
    bot.send(HELLO)
    bot.read_line(1.0)
    assert bot.send(request(1)), "the request reached it before it exited"
    assert bot.read_line(clock() + 1.0).status is ReadStatus.EXITED
    assert bot.wait_exit(3.0) == 3 and bot.returncode == 3 and not bot.alive
    assert not bot.send(request(2)), "a dead bot takes no input"
    assert bot.stderr_text() == "bye\n"

    stay, clock = started(Script(Ready(), CloseStdout()))
    stay.send(HELLO)
    stay.read_line(1.0)
    stay.send(request(1))
    assert stay.read_line(clock() + 1.0).status is ReadStatus.EXITED
    before = clock()
    assert stay.wait_exit(3.0) is None and clock() == pytest.approx(before + 3.0), "it waited, on the clock"

    deaf, _ = started(Script(at_start=[CloseStdin()]))
    assert not deaf.send(HELLO)


def test_lines_past_the_limit_and_bytes_that_are_not_utf8_read_as_a_processes() -> None:
    bot = ScriptedBot(Always("x" * 11, NotUtf8(b"\xff\xfe")), seat=0, clock=VirtualClock(), line_limit=10)
    bot.start()
    bot.send(HELLO)
    bot.read_line(1.0)
    bot.send(request(1))
    long, bad = bot.read_line(1.0), bot.read_line(1.0)
    assert (long.status, long.raw) == (ReadStatus.TOO_LONG, repr(b"x" * 11) + "...")
    assert (bad.status, bad.raw) == (ReadStatus.NOT_UTF8, repr(b"\xff\xfe"))


def test_a_closed_bot_reads_as_ended() -> None:
    bot, _ = started(EchoBrain())
    bot.close()
    assert bot.read_line(1.0).status is ReadStatus.EXITED and not bot.send(HELLO)
    with pytest.raises(RuntimeError):
        ScriptedBot(EchoBrain(), seat=0, clock=VirtualClock()).read_line(1.0)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_policy_sees_the_view_the_gate_built(preset: str) -> None:
    rng = random.Random(preset)
    rules = resolve_rules(preset, {"holes": 2, "decks": 2, "card_powers": True}, 3)
    game = Game(rules)
    seen = 0
    while not game.over:
        if game.chance is not None:
            order = list(game.chance)
            rng.shuffle(order)
            game.apply_shuffle(order)
            continue
        legal = game.legal_actions()
        for seat in range(game.players):
            shown = view(game, seat)
            assert seat_view_from_json(json.loads(json.dumps(shown.to_json()))) == shown
            seen += 1
        game.apply(rng.choice(legal))
    assert seen > 50


def test_a_policy_brain_answers_with_its_policys_choice() -> None:
    rules = resolve_rules("standard", {"layout": "2x2"}, 2)
    game = Game(rules)
    game.apply_shuffle(list(game.chance or ()))
    seat = game.turn()[0]
    legal = game.legal_actions()
    shown = view(game, seat)
    message = {"type": "request", "id": 7, "legal": [a.text for a in legal], "view": shown.to_json()}
    expected = GreedyPolicy(rules).choose(shown, legal)
    steps = PolicyBrain(GreedyPolicy(rules)).react(message)
    assert steps == (Answer(str(expected)),)
    assert PolicyBrain(lambda request: request["legal"][-1]).react(message) == (Answer(legal[-1].text),)
    assert Action.parse(str(expected)) in legal
