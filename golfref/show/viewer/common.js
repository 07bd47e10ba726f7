"use strict";
// Shared by the replay and standings pages. Every text from the data goes into the page
// through textContent or an attribute: nothing is ever parsed as markup.
const SVG_NS = "http://www.w3.org/2000/svg";
// Okabe-Ito colours (told apart with colour blindness), each seat also with its own marker
// shape and dash pattern, so no meaning rests on colour alone.
const SERIES_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#6a3d9a", "#56B4E9", "#000000", "#8c6d00"];
const SERIES_DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "12 3 3 3"];

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

function readData() { return JSON.parse(document.getElementById("data").textContent); }

// A marker of series i at (x, y): circle, square, triangle, diamond, then crosses.
function marker(i, x, y, colour) {
  const r = 4;
  const shape = i % 6;
  if (shape === 0) return svg("circle", { cx: x, cy: y, r: r, fill: colour });
  if (shape === 1) return svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: colour });
  if (shape === 2) return svg("path", { d: `M${x} ${y - r - 1}L${x + r + 1} ${y + r}L${x - r - 1} ${y + r}Z`, fill: colour });
  if (shape === 3) return svg("path", { d: `M${x} ${y - r - 1}L${x + r + 1} ${y}L${x} ${y + r + 1}L${x - r - 1} ${y}Z`, fill: colour });
  if (shape === 4) return svg("path", { d: `M${x - r} ${y - r}L${x + r} ${y + r}M${x + r} ${y - r}L${x - r} ${y + r}`, stroke: colour, "stroke-width": 2.5 });
  return svg("path", { d: `M${x - r - 1} ${y}H${x + r + 1}M${x} ${y - r - 1}V${y + r + 1}`, stroke: colour, "stroke-width": 2.5 });
}

// A line chart: series [{name, points: [[x, y], ...]}], axis titles, an optional band at x.
// opts.width and opts.height: the size in CSS pixels the chart is drawn at (default 640 by 260,
// scaled to fit), so that its 11 px labels stay 11 px; opts.xMax: the last x the axis shows;
// opts.onPick(x): a click on (or Enter at) a column of the chart picks that x.
function lineChart(series, opts) {
  const W = opts.width || 640, H = opts.height || 260, L = 48, R = 12, T = 12, B = 36;
  const xs = series.flatMap(s => s.points.map(p => p[0]));
  const ys = series.flatMap(s => s.points.map(p => p[1]));
  const x0 = opts.xMin !== undefined ? opts.xMin : Math.min(0, ...xs);
  const x1 = Math.max(x0 + 1, opts.xMax !== undefined ? opts.xMax : x0 + 1, ...xs);
  let y0 = Math.min(0, ...ys), y1 = Math.max(1, ...ys);
  if (y0 === y1) y1 = y0 + 1;
  const px = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const py = y => T + (y1 - y) / (y1 - y0) * (H - T - B);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": opts.label });
  if (opts.width) { root.setAttribute("width", W); root.setAttribute("height", H); }
  root.appendChild(svg("title", null, opts.label));
  const column = (W - L - R) / Math.max(1, x1 - x0);
  if (opts.band !== undefined && opts.band !== null) {
    const w = Math.max(8, Math.min(28, column * 0.8));
    root.appendChild(svg("rect", { x: px(opts.band) - w / 2, y: T, width: w, height: H - T - B, class: "band", "data-band": opts.band }));
  }
  // Round numbers on the value axis: steps of 1, 2 or 5 times a power of ten.
  const raw = (y1 - y0) / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const tick = [1, 2, 5, 10].map(m => m * mag).find(t => t >= raw);
  y0 = Math.floor(y0 / tick) * tick; y1 = Math.ceil(y1 / tick) * tick;
  for (let v = y0; v <= y1 + tick / 2; v += tick) {
    root.appendChild(svg("line", { x1: L, x2: W - R, y1: py(v), y2: py(v), class: "gridline", "stroke-width": 1 }));
    root.appendChild(svg("text", { x: L - 6, y: py(v) + 4, "text-anchor": "end" }, Number(v.toFixed(6))));
  }
  if (y0 < 0 && y1 > 0) root.appendChild(svg("line", { x1: L, x2: W - R, y1: py(0), y2: py(0), class: "axis" }));
  const step = Math.max(1, Math.ceil((x1 - x0) / Math.max(2, Math.floor((W - L - R) / 40))));
  for (let x = Math.ceil(x0); x <= x1; x += step) {
    root.appendChild(svg("text", { x: px(x), y: H - B + 16, "text-anchor": "middle" }, x));
  }
  root.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, opts.xTitle));
  root.appendChild(svg("text", { x: 12, y: T + (H - T - B) / 2, "text-anchor": "middle", transform: `rotate(-90 12 ${T + (H - T - B) / 2})` }, opts.yTitle));
  series.forEach((s, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    const g = svg("g", { "data-series": i, class: `series series-${i % SERIES_COLOURS.length}` });
    g.appendChild(svg("title", null, s.name));
    if (s.points.length > 1) {
      const d = s.points.map((p, k) => `${k ? "L" : "M"}${px(p[0]).toFixed(1)} ${py(p[1]).toFixed(1)}`).join("");
      g.appendChild(svg("path", { d: d, fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": SERIES_DASHES[i % SERIES_DASHES.length] }));
    }
    if (s.points.length <= 60) for (const p of s.points) g.appendChild(marker(i, px(p[0]), py(p[1]), colour));
    root.appendChild(g);
  });
  if (opts.onPick) {
    // A column per x with a point, to click; the keyboard's way is the table the chart sums up.
    const picked = new Set(xs);
    for (const x of picked) {
      const hit = svg("rect", { x: px(x) - column / 2, y: T, width: column, height: H - T - B, class: "pick", "data-x": x });
      hit.appendChild(svg("title", null, `${opts.xTitle} ${x}`));
      hit.addEventListener("click", () => opts.onPick(x));
      root.appendChild(hit);
    }
  }
  return root;
}

// The legend of a chart: each series' marker, dash and name.
function legend(names) {
  const list = el("ul", { class: "legend" });
  names.forEach((name, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    const key = svg("svg", { viewBox: "0 0 32 14", "aria-hidden": "true", class: `series series-${i % SERIES_COLOURS.length}` });
    key.appendChild(svg("line", { x1: 0, x2: 32, y1: 7, y2: 7, stroke: colour, "stroke-width": 2, "stroke-dasharray": SERIES_DASHES[i % SERIES_DASHES.length] }));
    key.appendChild(marker(i, 16, 7, colour));
    const item = el("li");
    item.appendChild(key);
    item.appendChild(document.createTextNode(" " + name));
    list.appendChild(item);
  });
  return list;
}

function table(node, headers, rows, caption) {
  clear(node);
  if (caption) node.appendChild(el("caption", null, caption));
  const head = el("tr");
  const textColumns = rows.length ? rows[0].text || [] : [];
  headers.forEach((h, i) => head.appendChild(el("th", { scope: "col", class: textColumns.includes(i) ? "text" : null }, h)));
  const thead = el("thead"); thead.appendChild(head); node.appendChild(thead);
  const body = el("tbody");
  for (const row of rows) {
    const tr = el("tr", row.attrs || null);
    row.cells.forEach((c, i) => {
      const cell = el(i === 0 ? "th" : "td", i === 0 ? { scope: "row" } : null);
      if (c instanceof Node) cell.appendChild(c); else cell.textContent = c === null || c === undefined ? "-" : String(c);
      if (row.text && row.text.includes(i)) cell.classList.add("text");
      tr.appendChild(cell);
    });
    body.appendChild(tr);
  }
  node.appendChild(body);
}
