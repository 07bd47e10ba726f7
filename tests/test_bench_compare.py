"""bench.compare matches each printed figure across runs by its line's wording, and knows which way is better."""

from __future__ import annotations

from bench.compare import compare, figures

RUN = """engine: random vs random
  goals: >= 150,000 decisions/s
  standard   median     45,664 decisions/s (3 runs x 20 matches)
  per log: read+parse 0.5 ms, validate 21.2 ms
  peak RSS 35.1 MiB
"""


def test_figures_are_keyed_by_wording_and_direction() -> None:
    found = figures(RUN)
    by_label = {f.label(): (v, f.higher_is_better) for f, v in found.items()}
    assert by_label["standard   median     # decisions/s (_ runs x _ matches)"] == (45664.0, True)
    assert by_label["per log: read+parse _ ms, validate # ms"] == (21.2, False)
    assert by_label["peak RSS # MiB"] == (35.1, False)
    assert by_label["standard   median     _ decisions/s (# runs x _ matches)"] == (3.0, None)


def test_a_worse_figure_is_flagged_and_constants_are_left_out() -> None:
    old = [figures(RUN)] * 3
    new = [figures(RUN.replace("45,664", "40,000").replace("21.2 ms", "21.0 ms"))] * 3
    report = "\n".join(compare(old, new, worse=10.0))
    assert "WORSE by 12%" in report  # the rate fell by 12%
    assert "21.2" in report and report.count("WORSE") == 1  # the time got better
    assert "150,000" not in report and "goals" not in report  # a goal both print alike is no measurement
