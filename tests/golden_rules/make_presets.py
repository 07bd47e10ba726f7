"""Write presets.json: every preset's resolved rules at every player count and layout.

Run as `python -m tests.golden_rules.make_presets` only when a preset is meant to change;
tests/test_rules.py::test_presets_resolve_as_snapshot compares against the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from golfref.game.rules import PRESETS, RulesError, resolve_rules

PATH = Path(__file__).with_name("presets.json")
LAYOUTS = (None, "1x4", "2x2", "2x3", "2x4", "3x3", "3x4", "4x4")


def resolved() -> dict[str, Any]:
    """Each preset, player count and layout: the rules' written form, or the error message."""
    out: dict[str, Any] = {}
    for preset in PRESETS:
        for players in range(2, 9):
            for layout in LAYOUTS:
                overrides = {} if layout is None else {"layout": layout}
                key = f"{preset} {players}p {layout or 'default'}"
                try:
                    out[key] = resolve_rules(preset, overrides, players).to_dict()
                except RulesError as e:
                    out[key] = f"error: {e}"
    return out


if __name__ == "__main__":
    PATH.write_text(json.dumps(resolved(), indent=1) + "\n")
