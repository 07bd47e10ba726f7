// The bot panel, "inside a bot" (golfref/show/inside.py builds its data; docs/VIEWER.md): at each
// step, the deciding bot's time against its limit, what it wrote to stderr during that decision
// and its faults in plain words; at the last step, the stderr after its last request and why
// any seat was disqualified. A seat's page holds only that seat's. Text goes in as text only.
const INSIDE = JSON.parse(document.getElementById("inside-data").textContent);

function insideLines(title, lines, kind) {
  const block = el("div", { class: "inside-lines", "data-lines": kind });
  block.appendChild(el("p", { class: "muted" }, title));
  block.appendChild(el("pre", { class: "stderr inside-stderr" }, lines.join("\n")));
  return block;
}

// A turn: {s: seat, r: request, ms, clock: "log" (else its transcript's, if it has one), budget (else the move
// limit), err and before (stderr lines), faults (in words), fallback}; see golfref/show/inside.py.
function insideTurn(turn) {
  const who = INSIDE.who[turn.s];
  const item = el("div", { class: "inside-turn", "data-seat": turn.s, "data-request": turn.r });
  item.appendChild(el("h3", null, `${who}, request ${turn.r}`));
  const limit = turn.budget !== undefined ? turn.budget : INSIDE.move_ms;
  const limitWords = turn.budget !== undefined ? `its budget of ${limit.toLocaleString("en")} ms for this request`
    : `the move limit of ${limit.toLocaleString("en")} ms`;
  const clock = turn.clock || (INSIDE.transcripts.includes(turn.s) ? "transcript" : "log");
  if (turn.ms !== undefined) {
    const time = el("p", { class: "inside-time", "data-ms": turn.ms, "data-limit": limit, "data-clock": clock });
    time.appendChild(document.createTextNode(`decided in ${turn.ms.toLocaleString("en")} ms of ${limitWords}, by ${clock === "log" ? "the log's time" : "the transcript's clock"} `));
    const over = turn.ms > limit;
    time.appendChild(el("meter", { min: 0, max: Math.max(limit, turn.ms, 1), value: turn.ms, high: limit, optimum: 0,
      "aria-label": `${turn.ms} ms of ${limit} ms${over ? ", over the limit" : ""}` }));
    item.appendChild(time);
  } else {
    item.appendChild(el("p", { class: "inside-time muted" }, "no decision time recorded"));
  }
  if (turn.fallback) item.appendChild(el("p", { class: "muted" }, "The fallback chose this move: the bot's answer did not count."));
  if (turn.faults) {
    const list = el("ul", { class: "plain faults inside-faults" });
    turn.faults.forEach(words => list.appendChild(el("li", { class: "fault" }, words)));
    item.appendChild(list);
  }
  if (turn.before) item.appendChild(insideLines(`stderr before request ${turn.r} was sent:`, turn.before, "before"));
  if (!INSIDE.transcripts.includes(turn.s)) return item;
  if (turn.err) item.appendChild(insideLines("stderr during this decision:", turn.err, "during"));
  else item.appendChild(el("p", { class: "muted" }, "no stderr during this decision"));
  return item;
}

function drawInside(frame) {
  const box = document.getElementById("inside");
  if (!box) return;
  clear(box);
  if (!INSIDE || !INSIDE.seats.length) { box.hidden = true; return; }
  box.hidden = false;
  box.appendChild(el("h2", { id: "inside-title" }, "Inside the bots"));
  INSIDE.notes.forEach(note => box.appendChild(el("p", { class: "muted inside-note" }, note)));
  const turn = frame.kind === "step" ? INSIDE.steps[`${frame.hole}:${frame.step}`] : undefined;
  if (turn) box.appendChild(insideTurn(turn));
  else box.appendChild(el("p", { class: "muted" }, frame.kind === "step" ? "No bot of this page decided this move." : "No decision at this moment."));
  if (INSIDE.last !== `${frame.hole}:${frame.step}:${frame.kind}`) return;
  Object.keys(INSIDE.tails).forEach(seat => box.appendChild(insideLines(`stderr of ${INSIDE.who[seat]} after its last request:`, INSIDE.tails[seat], "after")));
  const words = INSIDE.faults.concat(INSIDE.summary);
  if (!words.length) return;
  const list = el("ul", { class: "plain faults inside-summary" });
  INSIDE.faults.forEach(w => list.appendChild(el("li", { class: "fault" }, w)));
  INSIDE.summary.forEach(w => list.appendChild(el("li", { class: "fault", "data-summary": "1" }, w)));
  box.appendChild(list);
}
