(function () {
  const DATA = readData();
  const $ = id => document.getElementById(id);
  const name = DATA.tournament || DATA.directory;
  $("title").textContent = `golfref tournament: ${name}`;
  document.title = $("title").textContent;
  $("subtitle").textContent = `${DATA.directory}: ${DATA.matches_count} matches, ${DATA.deal_sets} deal sets`;
  const asRows = (rows, text) => rows.map(cells => ({ cells: cells, text: text }));
  table($("standings"), DATA.standings.headers, asRows(DATA.standings.rows, [1]), null);
  table($("pairwise"), DATA.pairwise.headers, asRows(DATA.pairwise.rows, [0, 1]), null);
  table($("ratings"), ["player", "mu", "sigma", "ordinal"], DATA.ratings.map(r => ({
    cells: [r.name, r.mu.toFixed(2), r.sigma.toFixed(2), r.ordinal.toFixed(2)], text: [0],
  })), null);

  const players = DATA.players;
  const history = DATA.rating_history;
  if (history.length) {
    const series = players.map(p => ({ name: p, points: history.map((snap, k) => [k + 1, snap[p]]).filter(pt => pt[1] !== undefined) }));
    $("rating-chart").appendChild(lineChart(series, {
      label: "Rating ordinal of each player after each match; the ratings table gives the final values",
      xTitle: "matches played", yTitle: "ordinal (higher is better)", xMin: 1,
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
      const fig = el("figure", { class: "dist", "data-player": p });
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
      root.appendChild(svg("line", { x1: L, x2: W - 4, y1: H - B, y2: H - B, stroke: "#57606a" }));
      root.appendChild(svg("text", { x: L, y: H - 6 }, lo));
      root.appendChild(svg("text", { x: W - 4, y: H - 6, "text-anchor": "end" }, hi));
      root.appendChild(svg("text", { x: (L + W) / 2, y: H - 6, "text-anchor": "middle" }, "points in a hole"));
      root.appendChild(svg("text", { x: L - 4, y: T + 8, "text-anchor": "end" }, top));
      fig.appendChild(root);
      fig.appendChild(el("figcaption", null, `${p}: ${n} holes, mean ${mean.toFixed(2)} points`));
      dist.appendChild(fig);
    });
  }

  table($("matches"), ["match", "deal set", "seating (total, place)", "replay"], DATA.matches.map(m => {
    let replay;
    if (m.replay) {
      replay = el("a", { href: m.replay }, `replay ${m.index}`);
    } else {
      replay = el("span", { class: "fault" }, `no replay: ${m.problem || "log not readable"}`);
    }
    const seats = m.seating.map((p, s) => `${s}: ${p} (${m.totals[s]}, ${m.placings[s]}${m.statuses[s] !== "ok" ? ", " + m.statuses[s] : ""})`).join("; ");
    return { cells: [m.index, m.deal_set, seats, replay], text: [2, 3], attrs: { "data-match": m.index } };
  }), null);
})();
