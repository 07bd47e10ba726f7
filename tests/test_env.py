"""golfref.env: the PettingZoo AEC environment and the Gymnasium wrapper (the rl extra).

PettingZoo's and Gymnasium's own checkers, seeding, rewards, illegal actions, rendering, and
the observations against the full state over many random games.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install -e .[rl]")
pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install -e .[rl]")
np = pytest.importorskip("numpy", reason="the rl extra is not installed: pip install -e .[rl]")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import golfref.env as golf_env  # noqa: E402
from golfref.game.narrate import hole_label  # noqa: E402
from golfref.game.rules import resolve_rules  # noqa: E402
from golfref.kit import golfbot  # noqa: E402

CASES = [
    ("standard", {}, 2),
    ("classic", {"layout": "4x4"}, 8),
    ("knock", {}, 3),
    ("arena", {"layout": "2x2"}, 2),
    ("arena", {"card_powers": True, "flip_after_throw": "may"}, 4),
    ("classic", {"reveal_choice": "player", "reveal": "peek", "block_bonus": "on", "layout": "3x3"}, 2),
]


def random_episode(env: golf_env.GolfAEC, seed: int) -> list[tuple[str, list[int], float]]:
    """Play one episode with masked random actions; the trajectory of (agent, observation, reward)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trajectory = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trajectory.append((agent, obs["observation"].tolist(), reward))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trajectory


# api_test warns about any observation space that is not a Box or a Discrete, and about the Dict's values; a
# Dict of the observation and its action mask is PettingZoo's own convention for its classic games.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("preset", "options", "players"), CASES)
def test_pettingzoo_api_test(preset: str, options: dict[str, object], players: int) -> None:
    api_test(golf_env.env(preset, options={**options, "holes": 2}, players=players), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: golf_env.env("arena", options={"card_powers": True, "holes": 2}, players=3), num_cycles=300)


def test_the_same_seed_plays_the_same_episode_and_another_seed_another() -> None:
    env = golf_env.raw_env("knock", options={"holes": 2}, players=3)
    first = random_episode(env, 11)
    assert random_episode(golf_env.raw_env("knock", options={"holes": 2}, players=3), 11) == first
    assert random_episode(env, 12) != first


def test_hole_rewards_add_up_to_minus_the_totals() -> None:
    env = golf_env.raw_env("standard", options={"holes": 3}, players=3)
    paid = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        paid[agent] += reward
        env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert [paid[a] for a in env.possible_agents] == [-float(t) for t in env.game.totals]
    assert len(env.game.results) == 3


def test_rank_rewards_follow_the_placings() -> None:
    env = golf_env.raw_env("standard", options={"holes": 2}, players=3, reward="rank")
    paid = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    env.reset(seed=2)
    for agent in env.agent_iter():
        obs, reward, terminated, _, _ = env.last()
        paid[agent] += reward
        env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    totals = env.game.totals
    for s, agent in enumerate(env.possible_agents):
        expected = (sum(u > totals[s] for u in totals) - sum(u < totals[s] for u in totals)) / 2
        assert paid[agent] == expected
    assert sum(paid.values()) == 0


@pytest.mark.parametrize(("preset", "options", "players"), CASES)
def test_observations_match_the_one_gate_over_many_games(
    preset: str, options: dict[str, object], players: int
) -> None:
    """The observation is the kit's encoding of the seat's view, its cards only those the seat may know."""
    env = golf_env.raw_env(preset, options={**options, "holes": 1}, players=players)
    at, width = golfbot.OBSERVATION_OFFSETS["grids"], len(golfbot.SLOT_FIELDS)
    rng = np.random.default_rng(3)
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, _, info = env.last()
            seat = env.possible_agents.index(agent)
            game = env.game
            assert info["view"].seat == seat
            for s, grid in enumerate(game.grids):
                for i, card in enumerate(grid):
                    rank = obs["observation"][at + (s * golfbot.MAX_SLOTS + i) * width + 2]
                    if not (game.up[card] or game.known[card] & (1 << seat)):
                        assert rank == 0
            if terminated:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            legal = {a.text for a in game.legal_actions()}
            assert {golfbot.ACTIONS[i] for i in np.flatnonzero(obs["action_mask"])} == legal
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_an_illegal_action_raises_on_the_raw_env_and_ends_the_wrapped_one(caplog: pytest.LogCaptureFixture) -> None:
    raw = golf_env.raw_env()
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 3 is not legal for player_0 now; legal: 0 \(stock\), 1 \(discard\)"):
        raw.step(3)
    wrapped = golf_env.env()
    wrapped.reset(seed=0)
    wrapped.step(3)
    assert "Illegal move made" in caplog.text
    assert all(wrapped.terminations.values())
    assert wrapped.rewards["player_0"] == -1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"config": "golf"}, "config must be a preset"),
        ({"config": "standard", "players": 9}, "players: must be 2 to 8"),
        ({"config": "standard", "options": {"layuot": "2x2"}}, "unknown rule option 'layuot'"),
        ({"config": "standard", "reward": "points"}, "reward must be one of hole, rank"),
        ({"config": "standard", "render_mode": "rgb"}, "render_mode must be ansi, human or None"),
    ],
)
def test_a_bad_configuration_is_one_line_naming_it(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(golf_env.EnvConfigError, match=message) as caught:
        golf_env.raw_env(**kwargs)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_config_takes_rules_and_match_configs(tmp_path: object) -> None:
    from golfref.config.match import parse_config

    rules = resolve_rules("arena", {"layout": "2x2"}, 3)
    assert golf_env.raw_env(rules).rules == rules
    config = parse_config(
        "match: m\nrules: {preset: knock, holes: 2}\n"
        "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\n"
    )
    env = golf_env.raw_env(config)
    assert (env.rules.preset, env.rules.holes, env.rules.players) == ("knock", 2, 2)
    assert golf_env.raw_env(config, options={"holes": 4}).rules.holes == 4


def test_render_ansi_shows_the_public_table_and_the_turns() -> None:
    env = golf_env.raw_env(render_mode="ansi")
    env.reset(seed=4)
    for _ in range(3):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    assert text is not None
    assert "hole 0 of 0-8, " in text and "player_0: stock" in text
    hidden = [env.game.cards[c].name for g in env.game.grids for c in g if not env.game.up[c]]
    assert not any(f" {name} " in f"{text} " for name in hidden)


@pytest.mark.parametrize(
    ("holes", "labels"), [(2, ["hole 0 of 0-1", "hole 1 of 0-1"]), (1, ["hole 0 (the only hole)"])]
)
def test_render_names_the_hole_from_0_as_the_log_and_the_command_line_do(holes: int, labels: list[str]) -> None:
    # The status line once said `hole 2 of 2` (from 1) where golfref run and replay say `hole 1 of 0-1`.
    env = golf_env.raw_env(options={"holes": holes}, render_mode="ansi")
    env.reset(seed=2)
    rng, seen = np.random.default_rng(1), []
    while True:
        text = env.render()
        assert text is not None
        (status,) = [line for line in text.splitlines() if "; totals [" in line]
        seen.append(status.split(", ")[0])
        if env.game.over:
            break
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert list(dict.fromkeys(seen)) == labels
    assert status.startswith(f"{labels[-1]}, match over; totals [")
    assert all(label == hole_label(int(label.split()[1]), holes) for label in seen)


def test_gymnasium_make_and_check_env() -> None:
    env = gymnasium.make("golfref/Golf-v0", config="arena", options={"holes": 2}, opponents="random")
    check_env(env.unwrapped)
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == (golfbot.OBSERVATION_SIZE,)
    assert info["view"].seat == 0


def test_the_gym_wrapper_plays_one_seat_to_the_end() -> None:
    env = golf_env.GolfEnv("standard", options={"holes": 2}, players=3, seat=1, opponents=["greedy", "random"])
    obs, _ = env.reset(seed=3)
    total, rng, done = 0.0, np.random.default_rng(0), False
    while not done:
        assert obs["action_mask"].any()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert info["view"].seat == 1 and not truncated
        total += reward
    assert total == -float(env.aec.game.totals[1])
    env.reset(seed=3)
    bad = next(i for i in range(len(golfbot.ACTIONS)) if not env.aec.observe("player_1")["action_mask"][i])
    _, reward, _, _, info = env.step(bad)
    assert info["illegal_action"] is True and reward <= -1.0


def test_without_the_extra_the_import_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "golfref.env" or m.startswith("golfref.env.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(ImportError) as caught:
        importlib.import_module("golfref.env")
    assert str(caught.value) == "golfref.env needs the rl extra (pettingzoo is missing): pip install golfref[rl]"


def test_a_match_config_file_and_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "match.yaml"
    path.write_text(
        "match: m\nrules: {preset: arena, layout: 2x2, holes: 3}\n"
        "players:\n  - {name: a, builtin: greedy}\n  - {name: b, builtin: random}\n  - {name: c, builtin: random}\n",
        encoding="utf-8",
    )
    rules = golf_env.raw_env(str(path)).rules
    assert (rules.layout, rules.holes, rules.players, rules.swap_face_up) == ("2x2", 3, 3, False)
    # A layout-dependent default follows a new layout: arena's face-down swaps are for 2x2 only.
    assert golf_env.raw_env(path, options={"layout": "2x3"}).rules.swap_face_up is True
    with pytest.raises(golf_env.EnvConfigError, match="golfref.env: .*missing.yaml") as caught:
        golf_env.raw_env(tmp_path / "missing.yaml")
    assert "\n" not in str(caught.value)
