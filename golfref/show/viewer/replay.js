(function () {
  const DATA = readData();
  const frames = DATA.frames;
  const players = DATA.players;
  const names = players.map(p => p.name);
  const RULES = DATA.rules;
  const RANK_WORDS = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
  const RANK_LABELS = { T: "10" };
  const SUITS = {
    S: ["\u2660", "spades", false], H: ["\u2665", "hearts", true], D: ["\u2666", "diamonds", true],
    C: ["\u2663", "clubs", false], R: ["", "red", true], B: ["", "black", false],
  };
  const $ = id => document.getElementById(id);
  const slider = $("slider");
  let current = -1;
  // A page written beside a tournament report links back to it (data.report, a relative URL).
  if (DATA.report) {
    const back = el("p", { class: "small" });
    back.appendChild(el("a", { id: "report-link", href: DATA.report }, "Back to the tournament report"));
    $("title").after(back);
  }

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

  function cardText(name) { return name === null ? "face down" : cardInfo(name).label; }

  // -- header ---------------------------------------------------------------------------

  function header() {
    $("title").textContent = DATA.match ? `golfref replay: ${DATA.match}` : "golfref replay";
    document.title = $("title").textContent;
    const seen = DATA.seat === null
      ? "Every card any player saw; face-down cards nobody has seen are backs until the hole ends."
      : `As seat ${DATA.seat} (${names[DATA.seat]}) saw it: nothing else is in this file.`;
    $("subtitle").textContent = `match ${DATA.match_id || "?"} (${DATA.status}). ${seen}`;
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
    const seen2 = new Set();
    frames.forEach((f, i) => {
      if (seen2.has(f.hole)) return;
      seen2.add(f.hole);
      hole.appendChild(el("option", { value: i }, f.hole));
    });
    slider.max = String(frames.length - 1);
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

  function show(index) {
    if (!frames.length) return;
    index = Math.max(0, Math.min(frames.length - 1, index));
    if (index === current) return;
    current = index;
    const f = frames[index];
    slider.value = String(index);
    const tableNode = $("table");
    Object.assign(tableNode.dataset, { frame: index, hole: f.hole, step: f.step, kind: f.kind });
    $("position").textContent = `step ${index + 1} of ${frames.length}`;
    const holeSel = $("hole");
    for (const opt of holeSel.options) if (frames[Number(opt.value)].hole === f.hole) holeSel.value = opt.value;

    const label = RULES.holes === 1 ? `hole ${f.hole} (the only hole)` : `hole ${f.hole} of 0-${RULES.holes - 1}`;
    let where = label;
    if (f.kind === "end") where += ": end";
    else if (f.to_move !== null) where += ` \u00b7 ${names[f.to_move]} (seat ${f.to_move}) to ${f.decision}` + (f.power ? ` (power of the ${cardWord(f.power)})` : "");
    $("where").textContent = where;
    const move = $("move");
    move.dataset.seat = f.seat === undefined ? "" : f.seat;
    move.dataset.action = f.action || "";
    move.textContent = f.seat === undefined ? f.text : `${names[f.seat]} (seat ${f.seat}): ${f.text}`;
    const faults = clear($("faults"));
    (f.faults || []).forEach(i => faults.appendChild(faultNode(i)));
    (f.disqualified || []).forEach(s => faults.appendChild(el("li", { class: "fault" }, `${names[s]} (seat ${s}) is disqualified; the fallback plays its turns from here`)));
    if (f.end && f.end.notes.length) faults.appendChild(el("li", null, "cancelled: " + f.end.notes.join("; ")));

    piles(f);
    seats(f);
    closing(index, f);
    drawInside(f);
    scores(f);
  }

  function cardWord(rank) { return RANK_WORDS[rank] || rank; }

  function piles(f) {
    const box = clear($("piles"));
    if (f.kind === "end") {
      box.appendChild(el("p", { class: "muted" }, `${label(f)}: every card turned up`));
      return;
    }
    const stock = el("div", { class: "pile", id: "stock", "data-count": f.stock });
    stock.appendChild(f.stock ? cardNode(null, false, "stock") : el("div", { class: "card empty", role: "img", "aria-label": "stock: empty" }, "empty"));
    stock.appendChild(el("span", null, `stock ${f.stock}`));
    box.appendChild(stock);
    const pile = el("div", { class: "pile", id: "discard", "data-top": f.discard === null ? "" : f.discard, "data-count": f.pile });
    pile.appendChild(f.discard === null ? el("div", { class: "card empty", role: "img", "aria-label": "discard pile: empty" }, "empty") : cardNode(f.discard, true, `top of the discard pile (${f.pile} cards)`));
    pile.appendChild(el("span", null, `discard ${f.pile}`));
    box.appendChild(pile);
    if (f.hand) {
      const hand = el("div", { class: "pile", id: "hand", "data-card": f.hand.card === null ? "" : f.hand.card, "data-from": f.hand.from });
      hand.appendChild(cardNode(f.hand.card, true, `in ${names[f.to_move]}'s hand, from the ${f.hand.from}`));
      hand.appendChild(el("span", null, `in hand (from the ${f.hand.from})`));
      box.appendChild(hand);
    }
  }

  function label(f) { return RULES.holes === 1 ? `hole ${f.hole}` : `hole ${f.hole} of 0-${RULES.holes - 1}`; }

  function seats(f) {
    const box = clear($("seats"));
    const targets = new Set((f.targets || []).map(t => `${t[0]}:${t[1]}`));
    if (f.first_target) targets.add(`${f.first_target[0]}:${f.first_target[1]}`);
    f.grids.forEach((grid, s) => {
      const toMove = f.to_move === s;
      const panel = el("section", {
        class: "seat" + (toMove ? " to-move" : "") + (DATA.seat === s ? " viewer" : ""),
        "data-seat": s, "data-total": f.totals[s], "data-to-move": toMove ? "1" : "0",
        "aria-label": `seat ${s}, ${names[s]}`,
      });
      const h = el("h3");
      h.appendChild(el("span", { class: "name" }, names[s]));
      h.appendChild(el("span", { class: "badge" }, `seat ${s}`));
      if (DATA.seat === s) h.appendChild(el("span", { class: "badge" }, "you"));
      if (toMove) h.appendChild(el("span", { class: "badge turn" }, `\u25B6 to ${f.decision}`));
      h.appendChild(el("span", { class: "muted total" }, `total ${f.totals[s]}`));
      panel.appendChild(h);
      const gridNode = el("div", { class: "grid", role: "group", "aria-label": `${names[s]}'s grid, ${RULES.rows} by ${RULES.cols}` });
      gridNode.style.gridTemplateColumns = `repeat(${RULES.cols}, auto)`;
      grid.forEach((name, i) => {
        const up = f.up[s][i] === "1";
        const node = cardNode(name, up, `slot ${i}`);
        node.dataset.slot = i;
        if (targets.has(`${s}:${i}`)) { node.classList.add("target"); node.dataset.target = "1"; node.setAttribute("aria-label", node.getAttribute("aria-label") + ", target of the power"); }
        if (f.end) {
          const m = f.end.marks[s][i];
          if (m === "c") { node.classList.add("cancelled"); node.dataset.mark = "cancelled"; node.setAttribute("aria-label", node.getAttribute("aria-label") + ", cancelled"); }
          if (m === "b") { node.classList.add("block"); node.dataset.mark = "block"; node.setAttribute("aria-label", node.getAttribute("aria-label") + ", in a block"); }
        }
        gridNode.appendChild(node);
      });
      panel.appendChild(gridNode);
      if (f.end) {
        const e = f.end;
        let text = `points ${e.points[s]}`;
        if (e.penalties[s]) text += `, knock penalty +${e.penalties[s]}`;
        text += `, hole score ${e.scores[s]}, total ${f.totals[s]}`;
        panel.appendChild(el("p", { class: "numbers", "data-score": e.scores[s] }, text));
      }
      box.appendChild(panel);
    });
  }

  function closing(index, f) {
    const node = $("closing");
    if (index !== frames.length - 1) { node.hidden = true; return; }
    node.hidden = false;
    if (DATA.status === "finished" && DATA.totals && DATA.placings) {
      const order = names.map((_, s) => s).sort((a, b) => DATA.placings[a] - DATA.placings[b] || a - b);
      node.textContent = "Match over. " + order.map(s => `${DATA.placings[s]}. ${names[s]} ${DATA.totals[s]}`).join(", ") + " (lowest total wins).";
    } else {
      node.textContent = (f.note || `The log ends here (match ${DATA.status}).`) + ` Totals so far: ${names.map((n, s) => `${n} ${f.totals[s]}`).join(", ")}.`;
    }
  }

  function scores(f) {
    const done = holesDone(f);
    const results = DATA.results.slice(0, done);
    const chart = clear($("chart"));
    if (!results.length) {
      chart.appendChild(el("p", { class: "muted" }, "No hole finished yet."));
    } else {
      const series = names.map((name, s) => ({ name: `${name} (seat ${s})`, points: results.map((r, h) => [h, r.scores[s]]) }));
      chart.appendChild(lineChart(series, {
        label: `Hole scores per seat, holes 0 to ${done - 1}; the table below lists them`,
        xTitle: "hole", yTitle: "hole score (lower is better)", xMin: 0,
        band: f.kind === "end" ? f.hole : null,
      }));
      chart.appendChild(legend(series.map(s => s.name)));
    }
    const rows = results.map((r, h) => ({ cells: [h, ...r.scores, r.how], text: [names.length + 1], attrs: f.kind === "end" && h === f.hole ? { class: "current" } : null }));
    if (results.length) rows.push({ cells: ["total", ...results[results.length - 1].totals, ""] });
    table($("score-table"), ["hole", ...names, "end"], rows, "Hole scores (lower is better)");
  }

  // -- controls -------------------------------------------------------------------------

  function holeStart(i) { const h = frames[i].hole; while (i > 0 && frames[i - 1].hole === h) i--; return i; }
  function nextHole() { const h = frames[current].hole; let i = current; while (i < frames.length - 1 && frames[i].hole === h) i++; show(i); }
  function prevHole() { const start = holeStart(current); show(start === current && start > 0 ? holeStart(start - 1) : start); }

  $("first").addEventListener("click", () => show(0));
  $("last").addEventListener("click", () => show(frames.length - 1));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("prev-hole").addEventListener("click", prevHole);
  $("next-hole").addEventListener("click", nextHole);
  slider.addEventListener("input", () => show(Number(slider.value)));
  $("hole").addEventListener("change", e => show(Number(e.target.value)));
  document.addEventListener("keydown", e => {
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = { ArrowRight: () => show(current + 1), ArrowLeft: () => show(current - 1), Home: () => show(0),
      End: () => show(frames.length - 1), PageDown: nextHole, PageUp: prevHole };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  header();
  // Scripts (and tests) step the page with golfrefReplay.show(i); the state is in data- attributes.
  window.golfrefReplay = { show: show, frames: frames.length, get current() { return current; } };
  if (frames.length) show(0);
  else $("where").textContent = "The log has no hole yet.";
})();
