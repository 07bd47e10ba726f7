"""bench/ladder.py: the ladder's tournaments are valid configs, and its tables are the statistics it read."""

from __future__ import annotations

import yaml

from bench.ladder import SPEC, tables, tournament_config
from golfref.config.tournament import parse_tournament
from golfref.game.policies import POLICIES


def test_every_pair_of_the_ladder_is_a_valid_two_player_tournament() -> None:
    spec = yaml.safe_load(SPEC.read_text())
    assert {p["builtin"] for p in spec["players"].values()} == set(POLICIES), "every built-in is on the ladder"
    for preset in spec["presets"]:
        for pair in spec["pairs"]:
            data = tournament_config(spec, preset, pair, deal_sets=3)
            config = parse_tournament(yaml.safe_dump(data), f"{preset}-{pair}")
            assert [p.name for p in config.players] == pair
            assert config.rules.preset == preset and config.rules.layout == spec["layout"]
            assert config.deal_sets == 3 and config.duplicate_deals


def test_the_tables_show_each_interval_and_time() -> None:
    diff = {"mean": -1.234, "low": -2.5, "high": 0.04, "n": 12}
    single = {"mean": 3.0, "low": None, "high": None, "n": 1}
    rows = [("classic", ["expert", "good"], diff), ("arena", ["a", "b"], single)]
    text = tables(rows, [("classic", "expert", 41.26, 90.0, 80)])
    assert "| classic | expert | good | 12 | -1.23 | [-2.50, +0.04] |" in text
    assert "| arena | a | b | 1 | +3.00 | - |" in text
    assert "| classic | expert | 41.3 ms | 90.0 ms | 80 |" in text
