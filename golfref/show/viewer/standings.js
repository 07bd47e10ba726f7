(function () {
  const DATA = readData();
  const $ = id => document.getElementById(id);
  const name = DATA.tournament || DATA.directory;
  const pct = Math.round(DATA.confidence * 100) + "%";
  $("title").textContent = `golfref tournament: ${name}`;
  document.title = $("title").textContent;
  const left = DATA.left_out ? ` (${DATA.left_out} stored matches of incomplete deal sets left out of the tables)` : "";
  $("subtitle").textContent = `${DATA.directory}: ${DATA.matches_count} matches, ${DATA.deal_sets} deal sets${left}`;
  const asRows = (rows, text) => rows.map(cells => ({ cells: cells, text: text }));

  // One line under a table for each column whose meaning is not obvious.
  function notes(node, given) {
    clear(node);
    for (const [column, meaning] of Object.entries(given || {})) {
      const item = el("li");
      item.appendChild(el("strong", null, column));
      item.appendChild(document.createTextNode(": " + meaning));
      node.appendChild(item);
    }
  }

  function show(id) { $(id).hidden = false; }

  // A chart as wide as its box (at most 640 px), so its 11 px labels stay 11 px on a phone.
  const widthOf = node => Math.round(Math.max(300, Math.min(640, node.clientWidth || 640)));

  // -- the summary: verdicts and what match runners print first -------------------------------
  const verdicts = $("verdicts");
  if (DATA.gate) {
    const item = el("li", { class: "verdict " + (DATA.gate.verdict === "pass" ? "pass" : "fail"), "data-verdict": DATA.gate.verdict });
    item.appendChild(el("strong", null, "Gate: "));
    item.appendChild(document.createTextNode(DATA.gate.message));
    verdicts.appendChild(item);
  }
  if (DATA.sprt) {
    const passed = DATA.sprt.verdict && DATA.sprt.verdict.startsWith("pass");
    const item = el("li", { class: "verdict " + (passed ? "pass" : DATA.sprt.decides ? "fail" : "info") });
    item.appendChild(el("strong", null, "SPRT: "));
    item.appendChild(document.createTextNode(DATA.sprt.state + (DATA.sprt.verdict ? "; " + DATA.sprt.verdict : "")));
    verdicts.appendChild(item);
  }
  table($("outcomes"), DATA.outcomes.headers, asRows(DATA.outcomes.rows, [0, 1, 9]), null);
  notes($("outcomes-notes"), DATA.outcomes.notes);
  $("duplicate-deals").textContent = DATA.duplicate_deals;

  // -- intervals drawn as bars, each chart with its numbers as text ---------------------------
  const fmt = (v, signed) => v === null || v === undefined ? "-" : (signed && v > 0 ? "+" : "") + v.toFixed(3);

  function intervalChart(node, bars, opts) {
    bars = bars.filter(b => b);
    if (!bars.length) { node.hidden = true; return; }
    const W = widthOf(node), row = 26, L = Math.min(190, Math.round(W * 0.34)), R = 16, T = 8, B = 34;
    const H = T + B + row * bars.length;
    const values = bars.flatMap(b => [b.mean, b.low, b.high]).filter(v => v !== null);
    if (opts.reference !== undefined) values.push(opts.reference);
    let lo = Math.min(...values), hi = Math.max(...values);
    if (lo === hi) { lo -= 1; hi += 1; }
    const pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
    const px = v => L + (v - lo) / (hi - lo) * (W - L - R);
    const said = bars.map(b => `${b.label}: ${fmt(b.mean, opts.signed)}` + (b.low === null ? " (no interval: one deal set)" : `, ${pct} CI [${fmt(b.low, opts.signed)}, ${fmt(b.high, opts.signed)}]`));
    const label = `${opts.title}. ${said.join("; ")}`;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": label });
    root.appendChild(svg("title", null, label));
    if (opts.reference !== undefined) {
      root.appendChild(svg("line", { x1: px(opts.reference), x2: px(opts.reference), y1: T, y2: H - B, stroke: "#57606a", "stroke-dasharray": "4 3", class: "reference axis" }));
      const at = px(opts.reference), anchor = at > W * 0.7 ? "end" : at < L + 60 ? "start" : "middle";
      root.appendChild(svg("text", { x: at, y: H - B + 28, "text-anchor": anchor }, opts.referenceLabel));
    }
    root.appendChild(svg("text", { x: L, y: H - B + 14, "text-anchor": "start" }, lo.toFixed(2)));
    root.appendChild(svg("text", { x: W - R, y: H - B + 14, "text-anchor": "end" }, hi.toFixed(2)));
    bars.forEach((b, i) => {
      const y = T + row * i + row / 2;
      const g = svg("g", { class: "bar", "data-label": b.label, "data-mean": b.mean, "data-low": b.low, "data-high": b.high });
      const room = Math.floor((L - 12) / 6.5);
      const short = b.label.length > room ? b.label.slice(0, room - 1) + "\u2026" : b.label;
      g.appendChild(svg("title", null, said[i]));
      g.appendChild(svg("text", { x: L - 8, y: y + 4, "text-anchor": "end" }, short));
      if (b.low !== null && b.high !== null) {
        g.appendChild(svg("line", { x1: px(b.low), x2: px(b.high), y1: y, y2: y, stroke: "#0b5cad", "stroke-width": 4, class: "interval" }));
        for (const end of [b.low, b.high]) g.appendChild(svg("line", { x1: px(end), x2: px(end), y1: y - 6, y2: y + 6, stroke: "#0b5cad", "stroke-width": 2, class: "interval" }));
      }
      g.appendChild(svg("circle", { cx: px(b.mean), cy: y, r: 5, fill: "#1b1f24", class: "mean" }));
      root.appendChild(g);
    });
    node.appendChild(root);
    node.appendChild(el("figcaption", { class: "small" }, opts.caption));
  }

  table($("standings"), DATA.standings.headers, asRows(DATA.standings.rows, [1]), null);
  notes($("standings-notes"), DATA.standings.notes);
  intervalChart($("standings-bars"), DATA.standings_bars, {
    title: `Score per hole of each player with its ${pct} interval, lower is better`,
    caption: `Each dot is a player's score per hole, each bar its ${pct} confidence interval (lower is better); the standings table gives the same numbers.`,
  });
  table($("pairwise"), DATA.pairwise.headers, asRows(DATA.pairwise.rows, [0, 1]), null);
  notes($("pairwise-notes"), DATA.pairwise.notes);
  intervalChart($("pairwise-bars"), DATA.pairwise_bars, {
    title: `A - B in points per hole with its ${pct} interval, negative favours A`, signed: true,
    reference: 0, referenceLabel: "0: no difference",
    caption: `Each bar is a pair's difference A - B with its ${pct} interval: wholly left of 0, A is better; wholly right, B is.`,
  });

  if (DATA.gauntlet) {
    const c = DATA.gauntlet.challenger;
    show("gauntlet-section");
    $("gauntlet-intro").textContent = `${c} against each opponent on its own: ${c} - opponent in points per hole over the deal sets they shared (negative favours ${c}); W-D-L and Elo from ${c}'s side. The standings' score per hole mixes the opponents; this table does not.`;
    table($("gauntlet"), DATA.gauntlet.headers, asRows(DATA.gauntlet.rows, [0]), null);
    notes($("gauntlet-notes"), DATA.gauntlet.notes);
    intervalChart($("gauntlet-bars"), DATA.gauntlet.bars, {
      title: `${c} - each opponent in points per hole with its ${pct} interval, negative favours ${c}`, signed: true,
      reference: 0, referenceLabel: "0: no difference",
      caption: `One bar per opponent: ${c}'s difference against it, with its ${pct} interval.`,
    });
  }

  // -- the SPRT's and the gate's traces -------------------------------------------------------
  if (DATA.sprt && DATA.sprt.trace.length) {
    const s = DATA.sprt;
    show("sprt-section");
    for (const line of s.lines) $("sprt-lines").appendChild(el("li", null, line));
    const n = s.trace.length;
    const series = [
      { name: "LLR", points: s.trace.map(t => [t.blocks, t.llr]) },
      { name: `upper bound ${s.upper.toFixed(3)}: accept H1 (${s.player} - ${s.baseline} = ${s.d1})`, points: [[1, s.upper], [Math.max(2, n), s.upper]] },
      { name: `lower bound ${s.lower.toFixed(3)}: accept H0 (${s.player} - ${s.baseline} = ${s.d0})`, points: [[1, s.lower], [Math.max(2, n), s.lower]] },
    ];
    const last = s.trace[n - 1];
    $("sprt-chart").appendChild(lineChart(series, {
      label: `The SPRT's log-likelihood ratio after each of ${n} deal sets, ending at ${last.llr.toFixed(3)}, between its bounds ${s.lower.toFixed(3)} and ${s.upper.toFixed(3)}; the table below lists every value`,
      xTitle: "deal sets seen", yTitle: "LLR", xMin: 1, width: widthOf($("sprt-chart")),
    }));
    $("sprt-chart").appendChild(legend(series.map(x => x.name)));
    table($("sprt-trace"), ["deal sets", `mean ${s.player} - ${s.baseline}`, "LLR"], s.trace.map(t => ({
      cells: [t.blocks, fmt(t.mean, true), fmt(t.llr, true)],
    })), null);
  }
  if (DATA.gate) {
    const g = DATA.gate;
    show("gate-section");
    $("gate-lines").textContent = `${g.description}: ${g.message}`;
    const trace = g.trace.filter(t => t.low !== null);
    if (trace.length) {
      const n = g.trace.length;
      const series = [
        { name: `upper end of the ${Math.round(g.confidence * 100)}% interval`, points: trace.map(t => [t.blocks, t.high]) },
        { name: `${g.player} - ${g.baseline}`, points: g.trace.map(t => [t.blocks, t.mean]) },
        { name: `lower end of the interval`, points: trace.map(t => [t.blocks, t.low]) },
        { name: `margin ${g.margin}: pass once the upper end is below it`, points: [[1, g.margin], [Math.max(2, n), g.margin]] },
      ];
      const last = g.trace[n - 1];
      $("gate-chart").appendChild(lineChart(series, {
        label: `The gate's difference ${g.player} - ${g.baseline} and its interval after each of ${n} deal sets, ending at ${fmt(last.mean, true)} [${fmt(last.low, true)}, ${fmt(last.high, true)}] against the margin ${g.margin}: ${g.verdict}; the table below lists every value`,
        xTitle: "deal sets shared", yTitle: "points per hole", xMin: 1, width: widthOf($("gate-chart")),
      }));
      $("gate-chart").appendChild(legend(series.map(x => x.name)));
    }
    table($("gate-trace"), ["deal sets", `${g.player} - ${g.baseline}`, "low", "high", "verdict"], g.trace.map(t => ({
      cells: [t.blocks, fmt(t.mean, true), fmt(t.low, true), fmt(t.high, true), t.verdict], text: [4],
    })), null);
  }

  // -- finer tables ----------------------------------------------------------------------------
  table($("seats"), DATA.seats.headers, asRows(DATA.seats.rows, []), null);
  notes($("seats-notes"), DATA.seats.notes);
  table($("player-seats"), DATA.player_seats.headers, asRows(DATA.player_seats.rows, [0]), null);
  notes($("player-seats-notes"), DATA.player_seats.notes);
  for (const pair of DATA.deal_set_pairs.tables) {
    const box = el("details", { class: "deal-set-pair" });
    box.appendChild(el("summary", null, `A = ${pair.a}, B = ${pair.b}: ${pair.rows.length} deal sets`));
    const wrap = el("div", { class: "scroll" });
    const t = el("table", { class: "data" });
    table(t, pair.headers, asRows(pair.rows, [1]), `${pair.a} against ${pair.b}, one row per deal set`);
    wrap.appendChild(t); box.appendChild(wrap);
    $("deal-sets").appendChild(box);
  }
  notes($("deal-sets-notes"), DATA.deal_set_pairs.notes);
  $("endings-intro").textContent = `Over the ${DATA.endings.logs} matches of the tables whose logs could be read, as played (a hole the fallback played counts as it ended).`;
  table($("endings"), DATA.endings.headers, asRows(DATA.endings.rows, [0]), null);
  notes($("endings-notes"), DATA.endings.notes);

  table($("ratings"), ["player", "mu", "sigma", "ordinal"], DATA.ratings.map(r => ({
    cells: [r.name, r.mu.toFixed(2), r.sigma.toFixed(2), r.ordinal.toFixed(2)], text: [0],
  })), null);

  const players = DATA.players;
  const history = DATA.rating_history;
  if (history.length) {
    const series = players.map(p => ({ name: p, points: history.map((snap, k) => [k + 1, snap[p]]).filter(pt => pt[1] !== undefined) }));
    $("rating-chart").appendChild(lineChart(series, {
      label: "Rating ordinal of each player after each match; the ratings table gives the final values",
      xTitle: "matches played", yTitle: "ordinal (higher is better)", xMin: 1, width: widthOf($("rating-chart")),
    }));
    $("rating-chart").appendChild(legend(players));
  }

  // One histogram per player, on a shared scale, so they compare at a glance.
  const all = players.flatMap(p => DATA.scores[p]);
  const dist = $("distributions");
  if (all.length) {
    const lo = Math.min(...all), hi = Math.max(...all);
    const bins = Math.min(20, hi - lo + 1);
    const width = (hi - lo + 1) / bins;
    const counts = players.map(p => {
      const c = new Array(bins).fill(0);
      for (const v of DATA.scores[p]) c[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
      return c;
    });
    const top = Math.max(1, ...counts.flat());
    players.forEach((p, i) => {
      const W = 320, H = 120, L = 30, B = 22, T = 6;
      const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
      const n = DATA.scores[p].length;
      const mean = n ? DATA.scores[p].reduce((a, b) => a + b, 0) / n : 0;
      const fig = el("figure", { class: `dist series-${i % SERIES_COLOURS.length}`, "data-player": p });
      const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${p}: ${n} hole scores from ${lo} to ${hi}, mean ${mean.toFixed(2)}` });
      root.appendChild(svg("title", null, `${p}: hole scores`));
      const bw = (W - L - 4) / bins;
      counts[i].forEach((c, b) => {
        const h = c / top * (H - T - B);
        const from = lo + b * width;
        const bar = svg("rect", { x: L + b * bw + 1, y: H - B - h, width: Math.max(1, bw - 2), height: h, fill: colour });
        bar.appendChild(svg("title", null, `${Math.round(from)}${width > 1 ? " to " + Math.round(from + width - 1) : ""} points: ${c} holes`));
        root.appendChild(bar);
      });
      root.appendChild(svg("line", { x1: L, x2: W - 4, y1: H - B, y2: H - B, stroke: "#57606a", class: "axis" }));
      root.appendChild(svg("text", { x: L, y: H - 6 }, lo));
      root.appendChild(svg("text", { x: W - 4, y: H - 6, "text-anchor": "end" }, hi));
      root.appendChild(svg("text", { x: (L + W) / 2, y: H - 6, "text-anchor": "middle" }, "points in a hole"));
      root.appendChild(svg("text", { x: L - 4, y: T + 8, "text-anchor": "end" }, top));
      fig.appendChild(root);
      fig.appendChild(el("figcaption", null, `${p}: ${n} holes, mean ${mean.toFixed(2)} points`));
      dist.appendChild(fig);
    });
  }

  // -- every stored match, with its replay and each seat's own page ----------------------------
  $("matches-intro").textContent = DATA.replays
    ? "Each match's replay shows the whole table; a seat's page shows only what that seat saw, as its bot did."
    : "Written without replay pages (--no-replays): each match names its log, which golfref replay LOG --html OUT.html turns into one.";
  table($("matches"), ["match", "deal set", "seating (total, place)", "replay", "seat views"], DATA.matches.map(m => {
    let replay, seats = "-";
    if (m.replay) {
      replay = el("a", { href: m.replay, class: "replay-link" }, `replay ${m.index}`);
      seats = el("span", { class: "seat-links" });
      m.seat_pages.forEach((href, s) => {
        if (s) seats.appendChild(document.createTextNode(" "));
        seats.appendChild(el("a", { href: href, class: "seat-link", "data-seat": s, "aria-label": `match ${m.index} as seat ${s} (${m.seating[s]}) saw it` }, `seat ${s}`));
      });
    } else if (m.problem) {
      replay = el("span", { class: "fault" }, `no replay: ${m.problem}`);
    } else {
      replay = el("span", { class: "text" }, m.log);
    }
    const shown = m.seating.map((p, s) => `${s}: ${p} (${m.totals[s]}, ${m.placings[s]}${m.statuses[s] !== "ok" ? ", " + m.statuses[s] : ""})`).join("; ");
    return { cells: [m.index, m.deal_set, shown, replay, seats], text: [2, 3, 4], attrs: { "data-match": m.index } };
  }), null);

  // A table of contents of the sections shown, for the keyboard and the eye.
  for (const section of document.querySelectorAll("main > section")) {
    if (section.hidden) continue;
    const heading = section.querySelector("h2");
    const item = el("li");
    item.appendChild(el("a", { href: "#" + section.id }, heading.textContent));
    $("contents").appendChild(item);
  }
})();
