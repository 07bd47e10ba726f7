(function () {
  const DATA = readData();
  const players = DATA.players;
  const names = players.map(p => p.name);
  const RULES = DATA.rules;
  const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
  const RANK_LABELS = { T: "10" };
  const SUITS = {
    S: ["\u2660", "spades", false], H: ["\u2665", "hearts", true], D: ["\u2666", "diamonds", true],
    C: ["\u2663", "clubs", false], R: ["", "red", true], B: ["", "black", false],
  };
  const SPEEDS = [0.5, 1, 2, 4, 8];
  const STEP_MS = 900;  // one step at 1x
  const $ = id => document.getElementById(id);
  const slider = $("slider");
  let current = -1;
  let shownHole = null;
  let markedItem = null;
  let chartKey = null;
  let focusSeat = null;  // the seat a link marks on the whole-table page
  let linkNote = null;   // what the page says about a link it could not follow as written
  let timer = null;

  // -- the frames: packed by html_replay.pack_frames, each what changed since the one before,
  // its keys written as their index in packed.keys, each hole's first frame packed whole.
  // `frames` holds what finding a moment needs (hole, step, kind, seat, faults) for every
  // frame; frame(i) unpacks the whole frame, a hole at a time, when it is first shown.

  const PACKED = DATA.frames;
  const KEY = Object.fromEntries(PACKED.keys.map((k, i) => [k, String(i)]));
  const STARTS = new Set(PACKED.starts);
  const INDEXED = ["hole", "step", "kind", "seat", "faults"];

  function unpackValue(old, value) {
    if (value && typeof value === "object" && !Array.isArray(value) && Array.isArray(old)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === "~") {
        const items = old.slice();
        for (const [i, v] of value["~"]) items[i] = unpackValue(old[i], v);
        return items;
      }
    }
    return value;
  }

  function unpack(prev, delta) {
    const frame = Object.assign({}, prev);
    for (const k of delta["-"] || []) delete frame[PACKED.keys[Number(k)]];
    for (const [k, v] of Object.entries(delta)) {
      if (k === "-") continue;
      const name = PACKED.keys[Number(k)];
      frame[name] = unpackValue(prev[name], v);
    }
    return frame;
  }

  const frames = [];
  {
    let m = {};
    PACKED.packed.forEach((delta, i) => {
      const next = STARTS.has(i) ? {} : Object.assign({}, m);
      for (const k of delta["-"] || []) delete next[PACKED.keys[Number(k)]];
      for (const name of INDEXED) if (KEY[name] !== undefined && KEY[name] in delta) next[name] = unpackValue(m[name], delta[KEY[name]]);
      frames.push(next);
      m = next;
    });
  }
  const unpacked = new Array(frames.length);
  function frame(i) {
    if (unpacked[i] === undefined) {
      let start = i;
      while (!STARTS.has(start)) start--;
      let prev = {};
      for (let j = start; j < frames.length && (j === start || !STARTS.has(j)); j++) {
        prev = unpacked[j] || unpack(prev, PACKED.packed[j]);
        unpacked[j] = prev;
      }
    }
    return unpacked[i];
  }

  // Where a frame is in the log: its hole and the log's step ("deal" and "end" at a hole's ends).
  function stepKey(f) { return f.kind === "deal" ? "deal" : f.kind === "end" ? "end" : String(f.step); }
  const byMoment = new Map(frames.map((f, i) => [`${f.hole}:${stepKey(f)}`, i]));
  // A turn: the frames of one seat's moves in a row (a deal, a reshuffle, an end are turns of their own).
  const turnOf = [];
  frames.forEach((f, i) => {
    const p = frames[i - 1];
    const same = p && f.kind === "step" && p.kind === "step" && p.hole === f.hole && p.seat === f.seat;
    turnOf.push(i === 0 ? 0 : turnOf[i - 1] + (same ? 0 : 1));
  });

  // -- cards ----------------------------------------------------------------------------

  function cardInfo(name) {
    const [body, deck] = name.split("#");
    const rank = body[0], suit = SUITS[body[1]] || ["", "", false];
    const deckNo = deck ? Number(deck) : 1;
    let label, words;
    let joker = null;
    if (rank === "X") { label = "Jkr"; words = `${suit[1]} joker`; joker = suit[1]; }
    else { label = (RANK_LABELS[rank] || rank) + suit[0]; words = `${RANK_WORDS[rank] || rank} of ${suit[1]}`; }
    if (RULES.decks > 1) words += `, deck ${deckNo}`;
    return { label, words, red: suit[2], deck: deckNo, joker };
  }

  // One card: a name (face up, or face down but known when up is false) or null (a back).
  function cardNode(name, up, where) {
    const attrs = { class: "card", role: "img", "data-card": name === null ? "" : name, "data-up": up ? "1" : "0" };
    let aria;
    if (name === null) {
      attrs.class += " back";
      aria = "face-down card";
    } else {
      const info = cardInfo(name);
      attrs.class += info.red ? " red" : " black";
      if (!up) attrs.class += " known";
      aria = info.words + (up ? "" : ", face down (known)");
    }
    attrs["aria-label"] = where ? `${where}: ${aria}` : aria;
    const node = el("div", attrs);
    if (name !== null) {
      const info = cardInfo(name);
      node.appendChild(el("span", { "aria-hidden": "true" }, info.label));
      if (RULES.decks > 1) node.appendChild(el("span", { class: "deck", "aria-hidden": "true", "data-deck": info.deck }, `#${info.deck}`));
      if (info.joker) node.appendChild(el("span", { class: "sub", "aria-hidden": "true" }, info.joker));
    }
    return node;
  }

  function mark(node, cls, words) {
    node.classList.add(cls);
    node.dataset[cls] = "1";
    node.setAttribute("aria-label", node.getAttribute("aria-label") + ", " + words);
  }

  function cardWord(rank) { return RANK_WORDS[rank] || rank; }

  // -- header ---------------------------------------------------------------------------

  function header() {
    $("title").textContent = DATA.match ? `golfref replay: ${DATA.match}` : "golfref replay";
    document.title = $("title").textContent;
    const seen = DATA.seat === null
      ? "Every card any player saw; face-down cards nobody has seen are backs until the hole ends."
      : `As seat ${DATA.seat} (${names[DATA.seat]}) saw it: nothing else is in this file.`;
    $("subtitle").textContent = `match ${DATA.match_id || "?"} (${DATA.status}). ${seen}`;
    // The report link is the tournament report's own relative address (html_replay refuses any other).
    if (DATA.report && !/^\s*[A-Za-z][A-Za-z0-9+.-]*:/.test(DATA.report)) {
      const p = $("report");
      p.hidden = false;
      p.appendChild(el("a", { href: DATA.report, id: "report-link" }, "\u2190 the tournament report"));
    }
    const rules = $("rules");
    RULES.summary.forEach(line => rules.appendChild(el("li", null, line)));
    if (DATA.seed !== null && DATA.seed !== undefined) rules.appendChild(el("li", null, `seed ${DATA.seed}`));
    if (DATA.error) rules.appendChild(el("li", { class: "fault" }, `error: ${DATA.error}`));
    table($("players"), ["seat", "player", "program", "status", "faults"], players.map(p => ({
      cells: [p.seat, p.name, p.program === null ? "(did not report)" : p.program + (p.version ? " " + p.version : ""), p.status, p.faults],
      text: [1, 2, 3],
    })), "Players");
    const extra = $("match-faults");
    players.forEach(p => {
      if (!p.stderr) return;
      const d = el("details");
      d.appendChild(el("summary", null, `stderr of seat ${p.seat} (${p.name})`));
      d.appendChild(el("pre", { class: "stderr" }, p.stderr));
      extra.appendChild(el("li")).appendChild(d);
    });
    // Faults shown at no step (before play, or in a hole the log does not finish) are listed here.
    const placed = new Set(frames.flatMap(f => f.faults || []));
    DATA.faults.forEach((f, i) => { if (!placed.has(i)) extra.appendChild(faultNode(i)); });
    const hole = $("hole");
    const seenHoles = new Set();
    frames.forEach((f, i) => {
      if (seenHoles.has(f.hole)) return;
      seenHoles.add(f.hole);
      hole.appendChild(el("option", { value: i }, f.hole));
    });
    slider.max = String(Math.max(0, frames.length - 1));
    const legendBox = $("legend");
    legendBox.appendChild(legend(names.map((n, s) => `${n} (seat ${s})`)));
  }

  function faultNode(i) {
    const f = DATA.faults[i];
    const item = el("li", { class: "fault", "data-fault": i });
    let text = `fault: ${names[f.seat]} (seat ${f.seat}): ${f.kind}`;
    if (f.request !== null) text += ` (request ${f.request})`;
    if (f.message !== undefined && f.message !== null) text += `: ${f.message}`;
    item.appendChild(document.createTextNode(text));
    if (f.line !== undefined && f.line !== null) {
      item.appendChild(el("br"));
      item.appendChild(document.createTextNode("line: "));
      item.appendChild(el("code", null, f.line));
    }
    return item;
  }

  // -- one frame ------------------------------------------------------------------------

  function holesDone(frame) { return frame.kind === "end" ? frame.hole + 1 : frame.hole; }
  function holeLabel(f) { return RULES.holes === 1 ? `hole ${f.hole} (the only hole)` : `hole ${f.hole} of 0-${RULES.holes - 1}`; }

  // The moment's address: #hole=3&step=12, and the seat a link marks (a seat page: always its own).
  function fragment(f) {
    let text = `#hole=${f.hole}&step=${stepKey(f)}`;
    const seat = DATA.seat !== null ? DATA.seat : focusSeat;
    if (seat !== null) text += `&seat=${seat}`;
    return text;
  }

  // keepNote: shown by following a link, whose note (if any) stays until the next step.
  function show(index, keepNote) {
    if (!frames.length) return;
    index = Math.max(0, Math.min(frames.length - 1, index));
    if (index === current) return;
    if (!keepNote) linkNote = null;
    current = index;
    draw(frame(index), index);
    if (index === frames.length - 1) pause();
  }

  function draw(f, index) {
    slider.value = String(index);
    const tableNode = $("table");
    Object.assign(tableNode.dataset, { frame: index, hole: f.hole, step: f.step, kind: f.kind });
    const here = fragment(f);
    if (location.hash !== here) history.replaceState(null, "", here);
    $("cite").setAttribute("href", here);
    const holeSel = $("hole");
    for (const opt of holeSel.options) if (frames[Number(opt.value)].hole === f.hole) holeSel.value = opt.value;

    let where = holeLabel(f);
    if (f.kind === "deal") where += " \u00b7 the deal";
    else if (f.kind === "end") where += " \u00b7 end";
    else where += ` \u00b7 step ${f.step}` + (f.kind === "reshuffle" ? " (reshuffle)" : "");
    if (f.request !== undefined) where += f.request === null ? " \u00b7 no request (not asked)" : ` \u00b7 request ${f.request}`;
    where += ` \u00b7 frame ${index + 1} of ${frames.length}`;
    const position = $("position");
    position.textContent = where;
    Object.assign(position.dataset, { hole: f.hole, step: stepKey(f), request: f.request === undefined || f.request === null ? "" : f.request });
    $("turn").textContent = f.to_move !== null
      ? `${names[f.to_move]} (seat ${f.to_move}) to ${f.decision}` + (f.power ? ` (power of the ${cardWord(f.power)})` : "")
      : "\u00a0";
    const move = $("move");
    move.dataset.seat = f.seat === undefined ? "" : f.seat;
    move.dataset.action = f.action || "";
    move.textContent = f.seat === undefined ? f.text : `${names[f.seat]} (seat ${f.seat}): ${f.text}`;
    const faults = clear($("faults"));
    if (linkNote) faults.appendChild(el("li", { class: "note" }, linkNote));
    (f.faults || []).forEach(i => faults.appendChild(faultNode(i)));
    (f.disqualified || []).forEach(s => faults.appendChild(el("li", { class: "fault" }, `${names[s]} (seat ${s}) is disqualified; the fallback plays its turns from here`)));
    if (f.end && f.end.notes.length) faults.appendChild(el("li", { class: "note cancel-note" }, "cancelled: " + f.end.notes.join("; ")));

    piles(f);
    seats(f);
    closing(index, f);
    moves(f, index);
    scores(f);
    // The per-frame panel of bot information (inside.js), in the side column.
    if (typeof drawInside === "function") drawInside(f, DATA);  // eslint-disable-line no-undef
  }

  // A pile's place: the pile, or a box of the same size when it is not on the table (a hole's
  // end, no card in hand), so nothing moves while stepping.
  function pileBox(id, attrs) { return el("div", Object.assign({ class: "pile", id: id }, attrs)); }
  function placeholder(text) {
    const box = el("div", { class: "pile placeholder", "aria-hidden": "true" });
    box.appendChild(el("div", { class: "card-space" }));
    box.appendChild(el("span", null, text));
    return box;
  }

  function piles(f) {
    const box = clear($("piles"));
    const last = f.last || {};
    if (f.kind === "end") {
      box.appendChild(placeholder("stock"));
      box.appendChild(placeholder("discard"));
      box.appendChild(placeholder("in hand"));
      box.appendChild(el("p", { class: "pile-note muted" }, `${holeLabel(f)}: every card turned up`));
      return;
    }
    const stock = pileBox("stock", { "data-count": f.stock });
    const stockCard = f.stock ? cardNode(null, false, "stock") : el("div", { class: "card empty", role: "img", "aria-label": "stock: empty" }, "empty");
    if (last.from === "stock") mark(stockCard, "last", "just drawn from");
    stock.appendChild(stockCard);
    stock.appendChild(el("span", null, `stock ${f.stock}`));
    box.appendChild(stock);
    const pile = pileBox("discard", { "data-top": f.discard === null ? "" : f.discard, "data-count": f.pile });
    const top = f.discard === null
      ? el("div", { class: "card empty", role: "img", "aria-label": "discard pile: empty" }, "empty")
      : cardNode(f.discard, true, `top of the discard pile (${f.pile} cards)`);
    if (last.from === "discard") mark(top, "last", "just drawn from");
    if (last.thrown) mark(top, "last", "just discarded");
    pile.appendChild(top);
    pile.appendChild(el("span", null, `discard ${f.pile}`));
    box.appendChild(pile);
    if (f.hand) {
      const hand = pileBox("hand", { "data-card": f.hand.card === null ? "" : f.hand.card, "data-from": f.hand.from });
      hand.appendChild(cardNode(f.hand.card, true, `in ${names[f.to_move]}'s hand, from the ${f.hand.from}`));
      hand.appendChild(el("span", null, `in hand (${f.hand.from})`));
      box.appendChild(hand);
    } else {
      box.appendChild(placeholder("in hand"));
    }
  }

  function seats(f) {
    const box = clear($("seats"));
    const targets = new Set((f.targets || []).map(t => `${t[0]}:${t[1]}`));
    if (f.first_target) targets.add(`${f.first_target[0]}:${f.first_target[1]}`);
    const moved = new Set(((f.last || {}).slots || []).map(t => `${t[0]}:${t[1]}`));
    f.grids.forEach((grid, s) => {
      const toMove = f.to_move === s;
      const panel = el("section", {
        class: "seat" + (toMove ? " to-move" : "") + (DATA.seat === s ? " viewer" : "") + (focusSeat === s ? " focus" : ""),
        "data-seat": s, "data-total": f.totals[s], "data-to-move": toMove ? "1" : "0",
        "aria-label": `seat ${s}, ${names[s]}` + (toMove ? ", to move" : ""),
      });
      const h = el("h3");
      h.appendChild(el("span", { class: "name", title: names[s] }, names[s]));
      h.appendChild(el("span", { class: "badge" }, `seat ${s}`));
      if (DATA.seat === s) h.appendChild(el("span", { class: "badge" }, "you"));
      panel.appendChild(h);
      const gridNode = el("div", { class: "grid", role: "group", "aria-label": `${names[s]}'s grid, ${RULES.rows} by ${RULES.cols}` });
      gridNode.style.gridTemplateColumns = `repeat(${RULES.cols}, auto)`;
      grid.forEach((name, i) => {
        const up = f.up[s][i] === "1";
        const node = cardNode(name, up, `slot ${i}`);
        node.dataset.slot = i;
        if (targets.has(`${s}:${i}`)) mark(node, "target", "target of the power");
        if (moved.has(`${s}:${i}`)) mark(node, "last", "just moved");
        if (f.end) {
          const m = f.end.marks[s][i];
          if (m === "c") { node.classList.add("cancelled"); node.dataset.mark = "cancelled"; node.setAttribute("aria-label", node.getAttribute("aria-label") + ", cancelled"); }
          if (m === "b") { node.classList.add("block"); node.dataset.mark = "block"; node.setAttribute("aria-label", node.getAttribute("aria-label") + ", in a block"); }
        }
        gridNode.appendChild(node);
      });
      panel.appendChild(gridNode);
      let text = `total ${f.totals[s]}`;
      if (f.end) {
        const e = f.end;
        text = `points ${e.points[s]}`;
        if (e.penalties[s]) text += `, knock penalty +${e.penalties[s]}`;
        text += `, hole score ${e.scores[s]}, total ${f.totals[s]}`;
      }
      const numbers = panel.appendChild(el("p", { class: "numbers", "data-score": f.end ? f.end.scores[s] : null }));
      numbers.appendChild(el("span", null, text));
      // The turn badge has a line of its own below the grid, kept when empty: nothing reflows.
      if (toMove) numbers.appendChild(el("span", { class: "badge turn" }, `\u25B6 to ${f.decision}`));
      box.appendChild(panel);
    });
  }

  function closing(index, f) {
    const node = $("closing");
    if (index !== frames.length - 1) { node.hidden = true; return; }
    node.hidden = false;
    node.textContent = closingText(f);
  }

  function closingText(f) {
    if (DATA.status === "finished" && DATA.totals && DATA.placings) {
      const order = names.map((_, s) => s).sort((a, b) => DATA.placings[a] - DATA.placings[b] || a - b);
      return "Match over. " + order.map(s => `${DATA.placings[s]}. ${names[s]} ${DATA.totals[s]}`).join(", ") + " (lowest total wins).";
    }
    return (f.note || `The log ends here (match ${DATA.status}).`) + ` Totals so far: ${names.map((n, s) => `${n} ${f.totals[s]}`).join(", ")}.`;
  }

  // The moves of the hole shown, each a link to its moment.
  function moveText(g) {
    if (g.kind === "deal") return "the deal";
    if (g.kind === "end") return "end: " + (g.end ? g.end.how : "");
    return g.seat === undefined ? g.text : `${names[g.seat]}: ${g.text}`;
  }

  function moves(f, index) {
    const list = $("moves");
    if (shownHole !== f.hole) {
      shownHole = f.hole;
      clear(list);
      $("moves-title").textContent = `Moves of hole ${f.hole}`;
      frames.forEach((m, i) => {
        if (m.hole !== f.hole) return;
        const g = frame(i);
        const item = el("li", { "data-frame": i });
        const link = el("a", { href: fragment(g), "data-frame": i });
        link.appendChild(el("span", { class: "step-no" }, g.kind === "step" || g.kind === "reshuffle" ? g.step : "\u2022"));
        link.appendChild(document.createTextNode(" " + moveText(g)));
        item.appendChild(link);
        list.appendChild(item);
      });
    }
    // Only the item left and the item shown change; scrolled inside the list only: the page
    // itself never moves while stepping.
    if (markedItem && markedItem.isConnected) { markedItem.classList.remove("current"); markedItem.firstChild.removeAttribute("aria-current"); }
    const item = list.querySelector(`li[data-frame="${index}"]`);
    markedItem = item;
    if (!item) return;
    item.classList.add("current");
    item.firstChild.setAttribute("aria-current", "step");
    const top = item.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 3);
  }

  function endFrameOf(hole) { const i = byMoment.get(`${hole}:end`); return i === undefined ? null : i; }

  function scores(f) {
    const done = holesDone(f);
    const band = f.kind === "end" ? f.hole : null;
    const width = Math.round($("chart").clientWidth) || 320;
    const key = `${done}:${band}:${width}`;
    if (key === chartKey) return;
    chartKey = key;
    const results = DATA.results.slice(0, done);
    const pick = x => { const i = endFrameOf(x); if (i !== null) show(i); };
    const scoreSeries = names.map((name, s) => ({ name: `${name} (seat ${s})`, points: results.map((r, h) => [h, r.scores[s]]) }));
    const totalSeries = names.map((name, s) => ({ name: `${name} (seat ${s})`, points: results.map((r, h) => [h, r.totals[s]]) }));
    const last = results.length ? results[results.length - 1] : null;
    const describe = (what, pts) => results.length
      ? `${what}, holes 0 to ${done - 1}: ` + names.map((n, s) => `${n} ${pts(s)}`).join(", ") + ". The table below lists every hole; a click on a hole shows its end."
      : `${what}: no hole finished yet.`;
    const opts = { xTitle: "hole", xMin: 0, band: band, width: width, height: 220, onPick: pick, xMax: Math.max(1, RULES.holes - 1) };
    clear($("chart")).appendChild(lineChart(scoreSeries, Object.assign({}, opts, {
      label: describe("Hole scores per seat", s => results.map(r => r.scores[s]).join(" ")), yTitle: "hole score (lower is better)",
    })));
    clear($("totals-chart")).appendChild(lineChart(totalSeries, Object.assign({}, opts, {
      label: describe("Running totals per seat", s => last.totals[s]), yTitle: "total (lower is better)",
    })));
    const rows = results.map((r, h) => ({
      cells: [el("a", { href: `#hole=${h}&step=end` + (DATA.seat !== null ? `&seat=${DATA.seat}` : ""), "aria-label": `hole ${h}: show its end` }, h),
        ...r.scores.map((v, s) => `${v} (${r.totals[s]})`), r.how],
      text: [names.length + 1], attrs: band === h ? { class: "current" } : null,
    }));
    if (results.length) rows.push({ cells: ["total", ...last.totals, ""] });
    table($("score-table"), ["hole", ...names, "end"], rows, "Hole scores, the running total in brackets (lower is better)");
  }

  // -- print: every hole's end on a page of its own ---------------------------------------

  let printed = false;
  function buildPrint() {
    if (printed) return;
    printed = true;
    const box = $("print");
    const title = el("h1", null, $("title").textContent);
    box.appendChild(title);
    box.appendChild(el("p", null, $("subtitle").textContent));
    const holes = [...new Set(frames.map(f => f.hole))];
    holes.forEach(h => {
      const section = el("section", { class: "print-hole", "data-hole": h });
      const i = endFrameOf(h);
      const f = frame(i === null ? frames.map(g => g.hole).lastIndexOf(h) : i);
      section.appendChild(el("h2", null, `${holeLabel(f)}` + (f.end ? `: ${f.end.how}` : ": not finished")));
      const grids = el("div", { class: "print-seats" });
      f.grids.forEach((grid, s) => {
        const seat = el("div", { class: "print-seat" });
        seat.appendChild(el("h3", null, `${names[s]} (seat ${s})`));
        const g = el("div", { class: "grid" });
        g.style.gridTemplateColumns = `repeat(${RULES.cols}, auto)`;
        grid.forEach((name, k) => {
          const node = cardNode(name, f.up[s][k] === "1", `slot ${k}`);
          const m = f.end ? f.end.marks[s][k] : "-";
          if (m === "c") node.classList.add("cancelled");
          if (m === "b") node.classList.add("block");
          g.appendChild(node);
        });
        seat.appendChild(g);
        seat.appendChild(el("p", null, f.end ? `hole score ${f.end.scores[s]}, total ${f.totals[s]}` : `total ${f.totals[s]}`));
        grids.appendChild(seat);
      });
      section.appendChild(grids);
      const list = el("ol", { class: "print-moves" });
      frames.forEach((g, k) => { if (g.hole === h && g.kind !== "deal" && g.kind !== "end") list.appendChild(el("li", null, `${g.step}. ${moveText(frame(k))}`)); });
      section.appendChild(list);
      if (h === holes[holes.length - 1]) section.appendChild(el("p", { class: "closing" }, closingText(frame(frames.length - 1))));
      box.appendChild(section);
    });
  }

  // -- controls -------------------------------------------------------------------------

  function holeStart(i) { const h = frames[i].hole; while (i > 0 && frames[i - 1].hole === h) i--; return i; }
  function nextHole() { const h = frames[current].hole; let i = current; while (i < frames.length - 1 && frames[i].hole === h) i++; show(i); }
  function prevHole() { const start = holeStart(current); show(start === current && start > 0 ? holeStart(start - 1) : start); }
  function turnEnd(t) { let i = turnOf.indexOf(t); while (i < frames.length - 1 && turnOf[i + 1] === t) i++; return i; }
  // Next turn: the end of this turn, or of the next one when this one is shown to its end.
  function nextTurn() { const end = turnEnd(turnOf[current]); show(end > current ? end : turnEnd(turnOf[current] + 1)); }
  function prevTurn() { if (turnOf[current] > 0) show(turnEnd(turnOf[current] - 1)); else show(0); }

  function speed() { return Number($("speed").value); }
  function setSpeed(d) {
    const i = SPEEDS.indexOf(speed());
    $("speed").value = String(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + d))]);
  }
  function playing() { return timer !== null; }
  function tick() {
    timer = null;
    if (current >= frames.length - 1) { pause(); return; }
    show(current + 1);
    if (current < frames.length - 1 && $("play").getAttribute("aria-pressed") === "true") timer = setTimeout(tick, STEP_MS / speed());
    else pause();
  }
  function play() {
    if (current >= frames.length - 1) show(0);
    const b = $("play");
    b.setAttribute("aria-pressed", "true");
    b.setAttribute("aria-label", "Pause");
    b.textContent = "\u275A\u275A Pause";
    document.body.dataset.playing = "1";
    if (timer === null) timer = setTimeout(tick, STEP_MS / speed());
  }
  function pause() {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    const b = $("play");
    b.setAttribute("aria-pressed", "false");
    b.setAttribute("aria-label", "Play");
    b.textContent = "\u25B6 Play";
    document.body.dataset.playing = "0";
  }
  function toggle() { if (playing()) pause(); else play(); }

  let helpReturn = null;
  function openHelp() { helpReturn = document.activeElement; $("help").hidden = false; $("help-close").focus(); }
  function closeHelp() { $("help").hidden = true; if (helpReturn && helpReturn.focus) helpReturn.focus(); helpReturn = null; }

  // #hole=3&step=12&seat=1: the moment a link names, or null.
  function follow(hash) {
    const params = new URLSearchParams((hash || "").replace(/^#/, ""));
    if (!params.has("hole") && !params.has("seat")) return null;
    linkNote = null;
    const seat = params.has("seat") ? Number(params.get("seat")) : null;
    if (seat !== null && !(Number.isInteger(seat) && seat >= 0 && seat < names.length)) linkNote = `The link names seat ${params.get("seat")}: this match has seats 0 to ${names.length - 1}.`;
    else if (DATA.seat === null) focusSeat = seat;
    else if (seat !== null && seat !== DATA.seat) linkNote = `The link names seat ${seat}; this page shows only what seat ${DATA.seat} (${names[DATA.seat]}) saw.`;
    if (!params.has("hole")) return current < 0 ? 0 : current;
    const hole = params.get("hole"), step = params.get("step") || "deal";
    const i = byMoment.get(`${hole}:${step}`);
    if (i === undefined) {
      linkNote = `The link names hole ${hole}, step ${step}: not in this log; showing the first step instead.`;
      return 0;
    }
    return i;
  }

  function go(hash) {
    const i = follow(hash);
    if (i === null) return false;
    current = -1;  // drawn again: a seat mark or a note may have changed
    chartKey = null;
    shownHole = null;
    show(i, true);
    return true;
  }

  $("first").addEventListener("click", () => show(0));
  $("last").addEventListener("click", () => show(frames.length - 1));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("prev-hole").addEventListener("click", prevHole);
  $("next-hole").addEventListener("click", nextHole);
  $("prev-turn").addEventListener("click", prevTurn);
  $("next-turn").addEventListener("click", nextTurn);
  $("play").addEventListener("click", toggle);
  $("help-open").addEventListener("click", openHelp);
  $("help-close").addEventListener("click", closeHelp);
  $("help").addEventListener("click", e => { if (e.target === $("help")) closeHelp(); });
  slider.addEventListener("input", () => show(Number(slider.value)));
  $("hole").addEventListener("change", e => show(Number(e.target.value)));
  window.addEventListener("hashchange", () => go(location.hash));
  window.addEventListener("resize", () => { if (current >= 0) scores(frame(current)); });
  window.addEventListener("beforeprint", buildPrint);
  matchMedia("print").addEventListener("change", e => { if (e.matches) buildPrint(); });
  document.addEventListener("keydown", e => {
    const helpOpen = !$("help").hidden;
    if (e.key === "Escape" && helpOpen) { e.preventDefault(); closeHelp(); return; }
    // The help is modal: Tab stays on its one control.
    if (e.key === "Tab" && helpOpen) { e.preventDefault(); $("help-close").focus(); return; }
    if (e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); if (helpOpen) closeHelp(); else openHelp(); return; }
    const tag = e.target && e.target.tagName;
    if (helpOpen || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
    // Space and Enter on a button or a link are theirs.
    if ((e.key === " " || e.key === "Enter") && (tag === "BUTTON" || tag === "A" || tag === "SUMMARY")) return;
    const keys = {
      ArrowRight: () => (e.shiftKey ? nextTurn() : show(current + 1)), ArrowLeft: () => (e.shiftKey ? prevTurn() : show(current - 1)),
      "]": nextTurn, "[": prevTurn, Home: () => show(0), End: () => show(frames.length - 1), PageDown: nextHole, PageUp: prevHole,
      " ": toggle, "+": () => setSpeed(1), "=": () => setSpeed(1), "-": () => setSpeed(-1),
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  header();
  // Scripts (and tests) step the page with golfrefReplay.show(i); the state is in data- attributes.
  window.golfrefReplay = {
    show: show, play: play, pause: pause, frames: frames.length, get current() { return current; },
    get playing() { return playing(); }, frame: frame, buildPrint: buildPrint,
  };
  if (frames.length) {
    if (!go(location.hash)) show(0);
    // The print pages (every hole unpacked) are built a while after the table is drawn, or
    // when printing starts sooner.
    setTimeout(buildPrint, 1000);
  } else {
    $("position").textContent = "The log has no hole yet.";
  }
  window.golfrefReplay.drawn = performance.now();
})();
