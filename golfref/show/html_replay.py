"""A logged match as one self-contained HTML page: `golfref replay LOG --html OUT.html`.

`replay_data(doc, seat)` re-plays the match through the engine, as `golfref replay` does, and
records one frame per moment: the deal of each hole, every step (an action or a reshuffle)
and each hole's end. Every card a frame names comes through the one gate, `view.view` and
`view.events_for`:

- with a seat, a frame holds exactly what that seat saw at that moment; other seats' bot
  output (fault lines and messages, stderr) and the seed are left out of the page entirely;
- without one, a frame holds what the players knew between them (as `golfref replay`
  prints it): a face-down card shows once any seat has seen it.

`replay_html` puts the frames into a page whose script draws them (`render_html`), each written as
what changed since the one before (`pack_frames`; the page's script and `unpack_frames` undo
it): a frame repeats the whole table, and a 36-hole 8-player match's full frames make a page
of several megabytes. Packing only leaves out what the frame before already held, so a seat
page still holds nothing its seat did not see. The page loads
nothing: styles, script and data are inline, and the data sits in a
`<script type="application/json">` with `<` escaped, read with `JSON.parse` and put into
the page with `textContent` only, so no text a bot controls is ever read as markup.
docs/VIEWER.md describes the page.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from ..game.cards import Card, Rank, Suit
from ..game.engine import Game, HoleResult, Move, Shuffle
from ..game.narrate import Narrator, Phrase, Role, hole_label, reshuffle_text, rules_summary
from ..game.rules import Rules, rules_from_dict
from ..game.scoring import block_slots
from ..game.view import events_seen, view
from ..record.faults import Fault
from ..record.matchlog import Chooser, DecisionStep, LogLike, LogPlayer, MatchLog, as_match_log, history_from_log
from ..record.transcript import TranscriptLine
from .inside import inside_data
from .terminal import page_text

__all__ = [
    "FrameKind",
    "replay_data",
    "render_html",
    "replay_html",
    "json_for_script",
    "card_label",
    "pack_frames",
    "unpack_frames",
]

DATA_VERSION = 2
"""The version of the page's data (`data.version`), for scripts that read a page's frames.

2: `frames` packed (`pack_frames`); frames carry `request` and `last`; the header `report`."""

PATCH = "~"
"""The one key of a packed list's patch: `{"~": [[index, value], ...]}` (`pack_frames`)."""
REMOVED = "-"
"""The key of a packed frame that lists the keys the frame before had and this one has not."""


class FrameKind(enum.Enum):
    """What moment a frame shows; the value is its `kind` in the page's data."""

    DEAL = "deal"
    """A hole's cards just dealt (its `step` is -1)."""
    STEP = "step"
    """Just after a seat's action (step `step` of the hole's log)."""
    RESHUFFLE = "reshuffle"
    """Just after the discard pile was shuffled into a new stock (D7)."""
    END = "end"
    """A hole's end: every card turned up and scored (its `step` is the hole's number of steps)."""


def replay_html(
    doc: LogLike,
    seat: int | None = None,
    transcripts: Mapping[int, Sequence[TranscriptLine]] | None = None,
    unread: Mapping[int, str] | None = None,
    report: str | None = None,
) -> str:
    """The whole page for a log that validated (VALID or INCOMPLETE), with its bot panel.

    `transcripts` are the seats' transcripts (`record.transcript.read_transcripts`), `unread`
    why a seat's could not be read; without them the panel shows the log's times only.
    `report`: the relative URL of the tournament report the page links back to (`replay_data`).
    """
    log = as_match_log(doc)
    data = replay_data(log, seat, report)
    frames = data["frames"]
    last = (frames[-1]["hole"], frames[-1]["step"], frames[-1]["kind"]) if frames else None
    inside = inside_data(log, seat, transcripts or {}, unread or {}, last)
    return render_html({**data, "frames": pack_frames(frames)}, inside=inside)


def pack_frames(frames: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The frames as `{"keys": [...], "starts": [...], "packed": [...]}`: each what changed since the one before.

    A packed frame holds the keys whose value changed, each written as its index in `keys`,
    with the new value; a list as long as the one before becomes a patch of the items that
    changed, `{"~": [[index, value], ...]}` (each value packed the same way), and `"-"` lists
    the keys that are gone. The first frame of each hole is packed whole (against nothing;
    `starts` lists them), so the page unpacks a hole without the holes before it. A packed
    frame holds nothing that is not in the frames: packing keeps every seat page to what its
    seat saw.
    """
    keys: dict[str, str] = {}

    def key(name: str) -> str:
        return keys.setdefault(name, str(len(keys)))

    out: list[dict[str, Any]] = []
    starts: list[int] = []
    prev: dict[str, Any] = {}
    for i, frame in enumerate(frames):
        if not prev or prev.get("hole") != frame.get("hole"):
            starts.append(i)
            prev = {}
        delta = {
            key(k): _pack_value(prev[k], v) if k in prev else v
            for k, v in frame.items()
            if k not in prev or prev[k] != v
        }
        gone = [key(k) for k in prev if k not in frame]
        if gone:
            delta[REMOVED] = gone
        out.append(delta)
        prev = frame
    return {"keys": list(keys), "starts": starts, "packed": out}


def _pack_value(old: Any, new: Any) -> Any:
    if isinstance(old, list) and isinstance(new, list) and old and len(old) == len(new):
        return {PATCH: [[i, _pack_value(a, b)] for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]}
    return new


def unpack_frames(packed: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames `pack_frames` packed (what the page's script does on opening)."""
    names: list[str] = packed["keys"]
    starts = set(packed["starts"])
    out: list[dict[str, Any]] = []
    prev: dict[str, Any] = {}
    for i, delta in enumerate(packed["packed"]):
        if i in starts:
            prev = {}
        gone = {names[int(k)] for k in delta.get(REMOVED, ())}
        frame = {k: v for k, v in prev.items() if k not in gone}
        for k, v in delta.items():
            if k != REMOVED:
                name = names[int(k)]
                frame[name] = _unpack_value(prev.get(name), v)
        out.append(frame)
        prev = frame
    return out


def _unpack_value(old: Any, new: Any) -> Any:
    if isinstance(new, dict) and list(new) == [PATCH] and isinstance(old, list):
        items = list(old)
        for i, value in new[PATCH]:
            items[i] = _unpack_value(old[i], value)
        return items
    return new


def json_for_script(data: Any) -> str:
    """`data` as JSON safe inside a `<script>` element: no `<`, `>` or `&` can end or open a tag, and
    no control character, bidirectional control or separator (a bot's name, stderr or message) can
    reorder or restyle what the page shows: each is shown escaped, `\\u202e`, `\\x9b`, as on the
    terminal (`terminal.page_text`: all but the line break)."""
    # The page reads it with JSON.parse, which takes no Infinity or NaN: never write them.
    text = json.dumps(_page_shown(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page_shown(value: Any) -> Any:
    """`value` with every string in it (keys too) through `page_text`."""
    if isinstance(value, str):
        return page_text(value)
    if isinstance(value, dict):
        return {_page_shown(k): _page_shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_page_shown(v) for v in value]
    return value


_MARKER = re.compile(r"/\*(CSP|STYLE|SCRIPT|DATA|INSIDE)\*/")


def render_html(data: dict[str, Any], template: str = "replay", inside: dict[str, Any] | None = None) -> str:
    """The page: the template with the data inlined; `template` is `replay` or `standings`.

    `inside` is the replay's bot panel (`inside.inside_data`); without it the panel stays empty.
    """
    style = _asset("viewer.css")
    own = ([_asset("inside.js")] if template == "replay" else []) + [_asset(f"{template}.js")]
    script = "\n".join([_asset("common.js"), *own])
    # The page may run its one script and style and nothing else, and may fetch nothing: a
    # second line of defence behind the escaping, should markup ever slip into the page.
    csp = (
        f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    page = _asset(f"{template}.html")
    values = {"CSP": csp, "STYLE": style, "SCRIPT": script, "DATA": json_for_script(data),
              "INSIDE": json_for_script(inside)}  # fmt: skip
    # One pass over the template: no marker is looked for in what replaced another, the data included.
    return _MARKER.sub(lambda m: values[m.group(1)], page)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _asset(name: str) -> str:
    return resources.files("golfref.show").joinpath("viewer", name).read_text(encoding="utf-8")


# -- the frames ----------------------------------------------------------------------------


def replay_data(doc: LogLike, seat: int | None = None, report: str | None = None) -> dict[str, Any]:
    """The page's data: the match header and one frame per deal, step and hole end (unpacked).

    `report`: a relative URL of the tournament report the page links back to (None: no link).
    Raises ValueError when the seat is out of range, the report link is not a relative URL or
    the log does not replay.
    """
    log = as_match_log(doc)
    rules = rules_from_dict(log.rules)
    if seat is not None and not 0 <= seat < rules.players:
        raise ValueError(f"seat {seat} is out of range: this match has seats 0 to {rules.players - 1}")
    if report is not None and (_SCHEME.match(report) or report.startswith(("/", "\\")) or not report.strip()):
        raise ValueError(f"report link {report!r}: not a relative URL (a page beside this one, like ../report.html)")
    data = _Recorder(log, rules, seat).run()
    data["report"] = report
    return data


# A URL scheme (`javascript:`, `https:`): a report link is a relative path, never one.
_SCHEME = re.compile(r"^\s*[A-Za-z][A-Za-z0-9+.-]*:")


class _Recorder:
    def __init__(self, log: MatchLog, rules: Rules, seat: int | None) -> None:
        self.log = log
        self.rules = rules
        self.seat = seat
        self.seats = list(range(rules.players)) if seat is None else [seat]
        self.game = Game(rules)
        self.names = [p.name for p in log.players]
        self.narrator = Narrator(self.names, rules)
        self.frames: list[dict[str, Any]] = []
        self.faults = [self.fault_json(f) for f in log.faults]
        self.by_request: dict[int, list[int]] = {}
        for i, f in enumerate(log.faults):
            if f.request is not None:
                self.by_request.setdefault(f.request, []).append(i)
        # Every request a step answers: a fault of another request is shown at its hole's end.
        self.requests = {s.request for _, s in log.decisions() if s.request is not None}
        self.card_ids = {c.name: i for i, c in enumerate(self.game.cards)}
        self.disqualified: dict[int, list[int]] = {}
        for s, p in enumerate(log.players):
            at = p.disqualified_at
            if at is not None and at.request is not None:
                self.disqualified.setdefault(at.request, []).append(s)

    # -- what the viewer may see --------------------------------------------------------

    def shows_private(self, seat: int) -> bool:
        """Whether the page may show `seat`'s own bot output (fault lines, messages, stderr)."""
        return self.seat is None or self.seat == seat

    def fault_json(self, f: Fault) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": f.seat, "kind": f.kind.value, "hole": f.hole, "request": f.request}
        if self.shows_private(f.seat):
            out["message"] = f.message
            out["line"] = f.line
        return out

    def player_json(self, s: int, p: LogPlayer) -> dict[str, Any]:
        if p.builtin is not None:
            program: str | None = f"built-in {p.builtin}"
        elif p.python is not None:
            program = f"python {p.python if p.object is None else p.object}"
        else:
            program = p.reported_name
        out: dict[str, Any] = {
            "seat": s,
            "name": self.names[s],
            "program": program,
            "version": p.reported_version,
            "status": p.status.value,
            "faults": p.faults,
        }
        if self.shows_private(s) and p.stderr:
            out["stderr"] = p.stderr
        return out

    def table(self, game: Game) -> dict[str, Any]:
        """The table as the viewer sees it: grids, piles, the card in hand, whose turn."""
        views = [view(game, s) for s in self.seats]
        first = views[0]
        grids = []
        for g, grid in enumerate(first.grids):
            cells: list[str | None] = []
            for i in range(len(grid)):
                card = next((v.grids[g][i] for v in views if v.grids[g][i] is not None), None)
                cells.append(None if card is None else card.name)
            grids.append(cells)
        up = ["".join("1" if f else "0" for f in face) for face in first.face_up]
        hand = None
        if first.drawn_from is not None:
            drawn = next((v.drawn for v in views if v.drawn is not None), None)
            hand = {"card": None if drawn is None else drawn.name, "from": first.drawn_from.value}
        return {
            "grids": grids,
            "up": up,
            "stock": first.stock_size,
            "discard": first.discard[-1].name if first.discard else None,
            "pile": len(first.discard),
            "hand": hand,
            "to_move": first.to_move,
            "decision": None if first.decision is None else first.decision.value,
            "power": None if first.power is None else first.power.value,
            "first_target": None if first.first_target is None else list(first.first_target),
            "totals": list(first.totals),
        }

    def events(self, game: Game, start: int, finished: bool) -> list[dict[str, Any]]:
        """The hole's events from `start` as the viewer sees them (the seats' knowledge merged)."""
        return events_seen(game, self.seats, start, finished)

    # -- the match -------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        log, rules, game = self.log, self.rules, self.game
        history = iter(history_from_log(log))
        for h, hole in enumerate(log.holes):
            deal = next(history)
            assert isinstance(deal, Shuffle)
            game.apply_shuffle(deal.order)
            self.frame(h, -1, FrameKind.DEAL, game, None, f"{hole_label(h, rules.holes)}: the deal", [])
            mark = 0
            ended = False
            for t, step in enumerate(hole.steps):
                event = next(history)
                if isinstance(event, Shuffle):
                    game.apply_shuffle(event.order)
                    news = self.events(game, mark, False)
                    mark = len(game.events)
                    count = next((e["cards"] for e in news if e["event"] == "reshuffle"), 0)
                    self.frame(h, t, FrameKind.RESHUFFLE, game, None, reshuffle_text(count), [])
                    continue
                assert isinstance(event, Move) and type(step) is DecisionStep
                results = len(game.results)
                game.apply(event.action)
                ended = len(game.results) > results
                table = game.last_table if ended and game.last_table is not None else game
                news = self.events(game, mark, ended)
                mark = len(table.events)
                text = self.describe(event.seat, news, step)
                self.frame(h, t, FrameKind.STEP, table, step, text, news)
                if ended:
                    self.end_frame(h, len(hole.steps), game.results[-1])
            if not ended:
                status, name = log.status.value, hole_label(h, rules.holes)
                self.frames[-1]["note"] = f"The log ends here: {name} was not finished (match {status})."
        return self.header()

    def frame(
        self,
        h: int,
        t: int,
        kind: FrameKind,
        game: Game,
        step: DecisionStep | None,
        text: str,
        news: Sequence[dict[str, Any]],
    ) -> None:
        frame: dict[str, Any] = {"hole": h, "step": t, "kind": kind.value, "text": text, **self.table(game)}
        if step is not None:
            frame["seat"] = step.seat
            frame["action"] = step.action
            frame["by"] = step.by.value
            frame["request"] = step.request
            frame["last"] = last_move(news)
            request = step.request
            if request is not None:
                faults = self.by_request.get(request, [])
                if faults:
                    frame["faults"] = faults
                if request in self.disqualified:
                    frame["disqualified"] = self.disqualified[request]
            targets = [ev["target"] for ev in news if ev["event"] in ("power_target", "power_peek")]
            targets += [pair for ev in news if ev["event"] == "power_swap" for pair in ev["cards"]]
            if targets:
                frame["targets"] = targets
        self.frames.append(frame)

    def end_frame(self, h: int, t: int, result: HoleResult) -> None:
        cards = self.game.cards
        cols = self.rules.cols
        marks = []
        for gs in result.grid_scores:
            in_block = {slot for b in gs.blocks for slot in block_slots(b, cols)}
            cancelled = {slot for line in gs.cancelled for slot in line.slots}
            marks.append(
                "".join("b" if i in in_block else "c" if i in cancelled else "-" for i in range(len(gs.points)))
            )
        notes = self.narrator.score_notes(result)
        how = self.narrator.result(result)
        frame: dict[str, Any] = {
            "hole": h,
            "step": t,
            "kind": FrameKind.END.value,
            "text": f"{hole_label(h, self.rules.holes)} ends: {how}; every card turned up",
            "grids": [[cards[c].name for c in g] for g in result.grids],
            "up": ["1" * len(g) for g in result.grids],
            "stock": None,
            "discard": None,
            "pile": None,
            "hand": None,
            "to_move": None,
            "decision": None,
            "power": None,
            "first_target": None,
            "totals": list(result.totals),
            "end": {
                "how": how,
                "marks": marks,
                "points": [gs.total for gs in result.grid_scores],
                "penalties": list(result.penalties),
                "scores": list(result.scores),
                "notes": notes,
            },
        }
        late = [i for i, f in enumerate(self.log.faults) if f.hole == h and (f.request not in self.requests)]
        if late:
            frame["faults"] = late
        self.frames.append(frame)

    # -- words ------------------------------------------------------------------------------

    def card(self, name: str | None) -> str:
        if name is None:
            return "a face-down card"
        return card_label(self.game.cards[self.card_ids[name]])

    def describe(self, seat: int, news: Sequence[dict[str, Any]], step: DecisionStep) -> str:
        """What one step did, in words (the narrator's), from the events the viewer may see."""
        return self.say(self.narrator.step(seat, news, step.action, fallback=step.by is Chooser.FALLBACK))

    def say(self, phrase: Phrase) -> str:
        """A phrase of the narrator as the page writes it: a card by its label, `a face-down card` unseen."""
        out = []
        for text, role in phrase:
            if role is Role.CARD:
                out.append(self.card(text))
            else:
                out.append(text or "")
        return "".join(out)

    def header(self) -> dict[str, Any]:
        log, rules = self.log, self.rules
        return {
            "version": DATA_VERSION,
            "match": log.match,
            "match_id": log.match_id,
            "status": log.status.value,
            "seat": self.seat,
            "seed": log.seed if self.seat is None else None,
            "rules": {
                "rows": rules.rows,
                "cols": rules.cols,
                "decks": rules.decks,
                "holes": rules.holes,
                "summary": [", ".join(group) for group in rules_summary(rules)],
            },
            "players": [self.player_json(s, p) for s, p in enumerate(log.players)],
            "faults": self.faults,
            "error": log.error if self.seat is None else None,
            "totals": None if log.totals is None else list(log.totals),
            "placings": None if log.placings is None else list(log.placings),
            "results": [
                {"scores": list(r.scores), "totals": list(r.totals), "how": self.narrator.result(r)}
                for r in self.game.results
            ],
            "frames": self.frames,
        }


def last_move(news: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Where the move just made touched the table, from its events: for the page to mark it.

    `from`: the pile a card was drawn from; `slots`: the `[seat, slot]` pairs whose card was
    swapped, flipped or revealed; `thrown`: whether a card went onto the discard pile. Places
    only, never a card: nothing here can tell a seat more than the move's words do.
    """
    out: dict[str, Any] = {}
    slots: list[list[int]] = []
    for ev in news:
        kind = ev["event"]
        if kind == "draw":
            out["from"] = ev["from"]
        elif kind in ("swap", "flip", "reveal"):
            slots.append([ev["seat"], ev["slot"]])
        elif kind == "power_swap":
            slots.extend(list(pair) for pair in ev["cards"])
        if kind in ("swap", "throw"):
            out["thrown"] = True
        if kind == "knock":
            out["knock"] = ev["seat"]
    if slots:
        out["slots"] = slots
    return out


def card_label(card: Card) -> str:
    """A card in the page's sentences: `10♥`, `K♠`, `red joker`; `#2` added for a card of the second deck."""
    text = f"{'red' if card.suit is Suit.RED else 'black'} joker" if card.rank is Rank.JOKER else card.pretty
    return text + (f"#{card.deck}" if card.deck > 1 else "")
