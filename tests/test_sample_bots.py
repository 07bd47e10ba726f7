"""The sample bots of sample_matches/bots/, run as real subprocesses over real pipes.

Every request is built from a real `Game` through the view gate, the way the referee
builds it, and every message either way is checked against schemas/protocol.schema.json.
Each bot plays whole holes under several rule sets; the greedy bot is also put in
scripted deals where one answer is clearly right.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from golfref.game.engine import Action, Game
from golfref.game.rules import Rules, resolve_rules
from golfref.game.view import events_for, view
from golfref.match import protocol

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parent.parent
BOT_DIR = ROOT / "sample_matches" / "bots"
SCHEMA = json.loads((ROOT / "schemas" / "protocol.schema.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

READ_TIMEOUT = 10.0
"""Seconds to wait for one line or for an exit: generous, so a slow CI box never flakes."""

BOTS = ("random_bot.py", "greedy_bot.py", "random_bot.js")
TIME = {"startup_ms": 10_000, "move_ms": 1_000, "bank_ms": 60_000, "increment_ms": 0, "grace_ms": 1_000}

# name: (preset, overrides, players); together they reach every decision kind, both
# reveal modes, face-down swaps, knocking, card powers, pairs, jokers and several decks.
CONFIGS: dict[str, tuple[str, dict[str, Any], int]] = {
    "standard": ("standard", {}, 2),
    "classic-3p": ("classic", {}, 3),
    "knock-jokers": ("knock", {"jokers": "on"}, 2),
    "arena-2x2-powers": ("arena", {"layout": "2x2", "card_powers": True}, 2),
    "arena-3x3-lines-may": (
        "arena",
        {"layout": "3x3", "lines": "columns+rows+diagonals", "card_powers": True,
         "flip_after_throw": "may", "block_bonus": "on"},
        3,
    ),
    "standard-3x3-2decks": ("standard", {"layout": "3x3", "decks": 2, "twos": 2, "court_values": "11/12"}, 2),
}


def bot_command(bot: str) -> list[str]:
    """The command that starts `bot`; skips the test when its interpreter is missing."""
    path = str(BOT_DIR / bot)
    if bot.endswith(".js"):
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not on PATH: random_bot.js needs Node.js to run")
        return [node, path]
    return [sys.executable, path]


class BotProcess:
    """One bot subprocess: newline framing, a deadline on every read, stderr kept in a file."""

    def __init__(self, argv: list[str], stderr_path: Path, env: dict[str, str]) -> None:
        self.stderr_path = stderr_path
        self._stderr = stderr_path.open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            env=env,
        )
        # A reader thread turns the blocking pipe into a queue that can be read with a timeout.
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr(self) -> str:
        """The tail of what the bot wrote to stderr, for failure messages."""
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8")[-2000:]

    def send(self, message: dict[str, Any]) -> None:
        """Write one message as one line."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def read(self, kind: str) -> dict[str, Any]:
        """Read one line, which must be a schema-valid message of type `kind`."""
        try:
            line = self._lines.get(timeout=READ_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"no {kind} within {READ_TIMEOUT} s; stderr:\n{self.stderr()}")
        if line is None:
            pytest.fail(f"stdout closed (exit code {self.proc.poll()}) before a {kind}; stderr:\n{self.stderr()}")
        message = json.loads(line)
        VALIDATOR.validate(message)
        assert message["type"] == kind, message
        return message

    def expect_exit(self) -> None:
        """The bot ends by itself, cleanly, without writing anything more."""
        try:
            code = self.proc.wait(timeout=READ_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {READ_TIMEOUT} s after goodbye or end of input")
        assert code == 0, self.stderr()
        assert self._lines.get(timeout=READ_TIMEOUT) is None, "wrote a line after its last request"

    def kill(self) -> None:
        """Stop the process if it is still running and release its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=READ_TIMEOUT)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self._stderr.close()


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Callable[[str, int], BotProcess]]:
    """Start bots by file name and seat; every one is killed at teardown, pass or fail."""
    started: list[BotProcess] = []

    def start(bot: str, seat: int) -> BotProcess:
        env = {**os.environ, "GOLFREF_SEAT": str(seat)}
        process = BotProcess(bot_command(bot), tmp_path / f"{bot}.{seat}.stderr", env)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


# -- messages, built as the referee builds them --------------------------------------


def hello(rules: Rules, seat: int) -> dict[str, Any]:
    """The hello for `seat`."""
    message = {
        "type": "hello",
        "protocol": protocol.PROTOCOL_VERSION,
        "seat": seat,
        "players": [f"bot{s}" for s in range(rules.players)],
        "rules": protocol.hello_rules(rules),
        "time": TIME,
    }
    VALIDATOR.validate(message)
    return message


def request(game: Game, request_id: int) -> dict[str, Any]:
    """The request for the seat to move, through the view gate."""
    seat = game.to_move
    assert seat is not None and game.decision is not None
    message = {
        "type": "request",
        "id": request_id,
        "decision": game.decision.value,
        "view": view(game, seat).to_json(),
        "events": events_for(game, seat),
        "legal": [str(a) for a in game.legal_actions()],
        "time_ms": 1000,
    }
    VALIDATOR.validate(message)  # the test must send what the protocol says
    return message


def ask(bot: BotProcess, game: Game, request_id: int) -> str:
    """Send the current decision to `bot`, check its answer, apply it, return the action."""
    sent = request(game, request_id)
    bot.send(sent)
    answer = bot.read("answer")
    assert answer["id"] == request_id
    assert answer["action"] in sent["legal"], (answer, sent["legal"])
    # The sample bots write to stderr only when something went wrong (greedy_bot's safety
    # net prints the traceback and answers legal[0], which would hide a bug).
    assert not bot.stderr(), bot.stderr()
    game.apply(Action.parse(answer["action"]))
    return str(answer["action"])


def goodbye_messages(game: Game) -> list[dict[str, Any]]:
    """The notices after the first hole: hole_end, match_end and goodbye, all schema-valid."""
    result = game.results[0]
    messages = [
        json.loads(
            protocol.hole_end(result, [str(c) for c in game.cards], events_for(game, 0, 0, finished=True))
        ),
        {"type": "match_end", "totals": list(game.totals), "placings": list(game.placings()), "disqualified": []},
        {"type": "goodbye"},
    ]
    for message in messages:
        VALIDATOR.validate(message)
    return messages


def shuffle(game: Game, rng: random.Random) -> None:
    """Supply the pending shuffle from `rng`."""
    assert game.chance is not None
    order = list(game.chance)
    rng.shuffle(order)
    game.apply_shuffle(order)


def deal(game: Game, cards: str) -> None:
    """Deal the written cards first: each seat's grid in turn, the discard, then the stock top."""
    ids = {str(card): i for i, card in enumerate(game.cards)}
    first = [ids[c] for c in cards.split()]
    assert game.chance is not None
    game.apply_shuffle(first + [i for i in game.chance if i not in set(first)])


# -- every bot, whole holes ----------------------------------------------------------


@pytest.mark.parametrize("bot", BOTS)
def test_bot_file_is_an_executable_script(bot: str) -> None:
    path = BOT_DIR / bot
    interpreter = "node" if bot.endswith(".js") else "python3"
    assert path.read_text(encoding="utf-8").splitlines()[0] == f"#!/usr/bin/env {interpreter}"
    assert os.access(path, os.X_OK), f"{path} is not executable"


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("bot", BOTS)
def test_bot_plays_a_whole_hole(bot: str, config: str, launch: Callable[[str, int], BotProcess]) -> None:
    preset, overrides, players = CONFIGS[config]
    rules = resolve_rules(preset, overrides, players)
    game = Game(rules)
    bots = [launch(bot, seat) for seat in range(players)]
    for seat, process in enumerate(bots):
        process.send(hello(rules, seat))
        ready = process.read("ready")
        assert ready["name"]

    rng = random.Random(f"{bot}/{config}")
    ids = [0] * players
    decisions: Counter[str] = Counter()
    while not game.results:
        if game.is_chance:
            shuffle(game, rng)
            continue
        seat = game.to_move
        assert seat is not None
        ids[seat] += 1
        decisions[game.decision.value] += 1  # type: ignore[union-attr]
        ask(bots[seat], game, ids[seat])

    assert decisions["draw"] > 0 and decisions["place"] > 0
    if rules.reveal_choice.value == "player":
        assert decisions["reveal"] == players * rules.reveal_count
    for process in bots:
        end, match_end, goodbye = goodbye_messages(game)
        process.send(end)
        # A message type from a later protocol version: the bot must ignore it.
        process.send({"type": "chat", "text": "good game"})
        process.send(match_end)
        process.send(goodbye)
        process.expect_exit()


@pytest.mark.parametrize("bot", BOTS)
def test_bot_exits_when_stdin_closes(bot: str, launch: Callable[[str, int], BotProcess]) -> None:
    rules = resolve_rules("standard", {}, 2)
    process = launch(bot, 0)
    process.send(hello(rules, 0))
    process.read("ready")
    assert process.proc.stdin is not None
    process.proc.stdin.close()
    process.expect_exit()


# -- the greedy bot in scripted deals --------------------------------------------------


def greedy_game(
    launch: Callable[[str, int], BotProcess], preset: str, overrides: dict[str, Any], cards: str
) -> tuple[BotProcess, Game]:
    """A two-player game dealt `cards`, with greedy_bot ready at seat 0 (who starts hole 0)."""
    rules = resolve_rules(preset, overrides, 2)
    game = Game(rules)
    deal(game, cards)
    bot = launch("greedy_bot.py", 0)
    bot.send(hello(rules, 0))
    bot.read("ready")
    return bot, game


def test_greedy_takes_the_discard_that_completes_a_column(launch: Callable[[str, int], BotProcess]) -> None:
    # standard: seat 0 has peeked 9S (slot 0) and 4H; 9H on the pile cancels column 0.
    bot, game = greedy_game(launch, "standard", {}, "9S 4H 8D 3C 6S 7H  AD 5C TD 6D 7C 8C  9H  3D")
    assert ask(bot, game, 1) == "discard"
    assert ask(bot, game, 2) == "swap:3"


@pytest.mark.parametrize(
    ("their_card", "expected"),
    [
        pytest.param("QH", "swap", id="next-seat-shows-a-queen"),
        pytest.param("9H", "throw", id="queen-helps-nobody"),
    ],
)
def test_greedy_keeps_a_card_the_next_seat_could_pair(
    launch: Callable[[str, int], BotProcess], their_card: str, expected: str
) -> None:
    # classic, fixed reveal: slots 0 and 1 of both grids are face up. Seat 0 draws QD
    # from the stock; thrown away, it would cancel the next seat's column under its queen.
    cards = f"3S 4S 8D 9C 6S 7H  {their_card} AD TD 5C 6D 7C  8C  QD"
    bot, game = greedy_game(launch, "classic", {"reveal_choice": "fixed"}, cards)
    assert ask(bot, game, 1) == "stock"
    action = ask(bot, game, 2)
    if expected == "throw":
        assert action == "throw"
    else:
        # Kept face down where it costs least: a slot whose card seat 0 has not seen.
        assert action in {"swap:2", "swap:3", "swap:4", "swap:5"}


@pytest.mark.parametrize(
    ("grid", "knocks"),
    [pytest.param("KS AS KH AH", True, id="all-cancelled"), pytest.param("9S 8S 7S 6S", False, id="thirty")],
)
def test_greedy_knocks_only_when_clearly_lowest(
    launch: Callable[[str, int], BotProcess], grid: str, knocks: bool
) -> None:
    # arena 2x2: private peeks, knocking on; seat 0 peeks its whole grid, seat 1's stays unseen.
    bot, game = greedy_game(launch, "arena", {"layout": "2x2", "reveal_count": 4}, f"{grid}  3D 4D 5D 6D  5C  TC")
    request_id = 0
    while game.decision is not None and game.decision.value == "reveal":
        if game.to_move == 0:
            request_id += 1
            ask(bot, game, request_id)
        else:
            game.apply(game.legal_actions()[0])
    assert game.to_move == 0
    assert (ask(bot, game, request_id + 1) == "knock") is knocks


def test_greedy_uses_a_jack_to_peek_at_an_unseen_card(launch: Callable[[str, int], BotProcess]) -> None:
    # standard with powers: a drawn JD helps no slot, so its power beats throwing it away.
    cards = "3S 4S 8D 9C 6S 7H  AD 5C TD 6D 7C 8C  9D  JD"
    bot, game = greedy_game(launch, "standard", {"card_powers": True}, cards)
    assert ask(bot, game, 1) == "stock"
    assert ask(bot, game, 2) == "power"
    # Slots 0 and 1 were peeked at the start: peeking them again would teach nothing.
    assert ask(bot, game, 3) in {"target:0:2", "target:0:3", "target:0:4", "target:0:5"}


def test_greedy_uses_a_king_to_trade_its_queen_for_a_rival_king(launch: Callable[[str, int], BotProcess]) -> None:
    # arena with powers, fixed reveal: seat 0 shows QS JS, seat 1 shows KD AD.
    cards = "QS JS 8D 9C 6S 7H  KD AD TD 5C 6D 7C  TC  KH"
    bot, game = greedy_game(launch, "arena", {"card_powers": True, "reveal_choice": "fixed"}, cards)
    assert ask(bot, game, 1) == "stock"
    assert ask(bot, game, 2) == "power"
    assert ask(bot, game, 3) in {"target:0:0", "target:0:1"}
    assert ask(bot, game, 4) == "target:1:0"
    assert str(game.cards[game.grids[1][0]])[0] in "QJ"
