// golfbot.js: the golfref bot protocol (version 3) for Node.js, no npm packages.
//
//   const golfbot = require("./golfbot");
//   golfbot.play((view, legal) => legal[0], { name: "my_bot" });
//
// play() reads golfref's messages on stdin, answers hello with ready, calls
// choose(view, legal) for every request and answers with what it returns, as it is: a
// value not in `legal` is the referee's illegal_action fault, which names the legal
// choices. `view` is the request's view (docs/PROTOCOL.md) plus `rules` and `time` from
// hello, `events`, `requestId` and `timeMs`. An error thrown by choose is not caught: node
// ends the bot with its stack on stderr and exit status 1, so that a bug shows (in the log,
// and in golfref check-bot) instead of hiding behind a move the bot did not choose.
// Unknown message types are ignored, as the protocol asks. cardPoints, gridScore and
// holeScores score a card, a grid and a hole as golfref does.

"use strict";

const readline = require("readline");

const PROTOCOL = 3;

// `view.rules` is hello.rules as JSON gives it: every field of docs/PROTOCOL.md#hellorules,
// the house options of protocol 3 included (null where an option is off).

// Points of each rank letter under the rules of hello ("X", a joker, only when jokers are on):
// hello's card_values (the whole table, protocol 3), else worked out from twos, court_values, jokers.
// rules.suit_values ("JH": 0) gives some cards other points: cardPoints looks there first.
function rankPoints(rules) {
  if (rules.card_values && Object.keys(rules.card_values).length) return { ...rules.card_values };
  const court = rules.court_values === "11/12";
  const points = { A: 1, 2: rules.twos, T: 10, J: court ? 11 : 10, Q: court ? 12 : 10, K: 0 };
  for (const r of "3456789") points[r] = Number(r);
  if (rules.jokers !== null) points.X = rules.jokers;
  return points;
}

// Points of one card ("JH", "XR#2"; null where unseen counts `unseen`): its suit's own value
// (suit_values) where it has one, else its rank's (rankPoints; pass them as `ranks` to look
// them up once). gridScore and holeScores score what a whole grid and the table add.
function cardPoints(rules, card, unseen, ranks = rankPoints(rules)) {
  if (card === null || card === undefined) return unseen;
  const bySuit = rules.suit_values || {};
  const key = card.slice(0, 2);
  return Object.prototype.hasOwnProperty.call(bySuit, key) ? bySuit[key] : ranks[card[0]];
}

// The lines that cancel (cancel: line) or the pair groups (cancel: pairs), in golfref's scan order:
// [kind, slots] pairs.
function groups(rules) {
  const [rows, cols] = rules.layout.split("x").map(Number);
  const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  if (rules.cancel === "pairs" && rules.pair_scope === "grid") return [["grid", range(rows * cols, (i) => i)]];
  const withRows = rules.cancel === "line" ? rules.lines !== "columns" : rules.pair_scope === "columns+rows";
  const out = range(cols, (c) => ["column", range(rows, (r) => r * cols + c)]);
  if (withRows) out.push(...range(rows, (r) => ["row", range(cols, (c) => r * cols + c)]));
  if (rules.cancel === "line" && rules.lines === "columns+rows+diagonals" && rows === cols) {
    out.push(["diagonal", range(rows, (i) => i * cols + i)], ["diagonal", range(rows, (i) => i * cols + cols - 1 - i)]);
  }
  return out.filter(([, slots]) => slots.length >= 2); // a line of one card is no line
}

// `total` split over `n` cards as golfref splits a block's or a joker pair's total.
function shares(total, n) {
  const share = Math.floor(total / n);
  const rest = total - share * n;
  return Array.from({ length: n }, (_, i) => share + (i < rest ? 1 : 0));
}

// A grid's score as golfref scores it (docs/RULES.md, "Card values and scoring"), exact_score
// applied: blocks, cancelled lines or pairs, joker_pair, negative_pairs and the column bonuses
// all count. An unseen card (null) counts `unseen` and cancels with nothing: the score of a
// grid with one is an estimate. The adjustments between players need every grid: holeScores.
function gridScore(rules, grid, unseen) {
  const [rows, cols] = rules.layout.split("x").map(Number);
  const ranks = grid.map((card) => (card === null ? null : card[0]));
  const values = rankPoints(rules);
  const points = grid.map((card) => cardPoints(rules, card, unseen, values));
  const own = points.slice(); // a card is negative by its own points, not by a block's share
  const inBlock = grid.map(() => false);
  if (rules.block_bonus !== null && rows >= 2 && cols >= 2) {
    for (let r = 0; r + 1 < rows; r++) {
      for (let c = 0; c + 1 < cols; c++) {
        const square = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1];
        const first = ranks[square[0]];
        if (first === null || square.some((s) => inBlock[s] || ranks[s] !== first)) continue;
        shares(rules.block_bonus, 4).forEach((share, i) => {
          inBlock[square[i]] = true;
          points[square[i]] = share;
        });
      }
    }
  }
  const cancelled = [];
  for (const [kind, slots] of groups(rules)) {
    if (rules.cancel === "line") {
      const first = ranks[slots[0]];
      if (first !== null && slots.every((s) => ranks[s] === first)) cancelled.push([kind, slots]);
    } else {
      const count = (rank) => slots.filter((s) => ranks[s] === rank).length;
      const hit = slots.filter((s) => ranks[s] !== null && count(ranks[s]) >= 2);
      if (hit.length) cancelled.push([kind, hit]);
    }
  }
  const done = inBlock.slice(); // a block card keeps its share, whatever line runs through it
  const columns = {};
  for (const [kind, slots] of cancelled) {
    const byRank = new Map(); // under cancel: pairs, each rank's cards are a line of their own
    for (const s of slots) byRank.set(ranks[s], [...(byRank.get(ranks[s]) || []), s]);
    for (const [rank, line] of byRank) {
      if (kind === "column") columns[rank] = (columns[rank] || 0) + 1;
      // A card a block or an earlier line decided keeps what it got there.
      if (rules.joker_pair !== null && rules.joker_pair !== undefined && rank === "X") {
        shares(rules.joker_pair, line.length).forEach((share, i) => { if (!done[line[i]]) points[line[i]] = share; });
      } else if (!(rules.negative_pairs === "keep" && line.some((s) => own[s] < 0))) {
        line.forEach((s) => { if (!done[s]) points[s] = 0; });
      }
      line.forEach((s) => { done[s] = true; });
    }
  }
  let total = points.reduce((a, b) => a + b, 0);
  if (rules.two_column_bonus !== null && rules.two_column_bonus !== undefined) {
    total += rules.two_column_bonus * Object.values(columns).filter((n) => n >= 2).length;
  }
  if (rules.jack_columns_bonus !== null && rules.jack_columns_bonus !== undefined && (columns.J || 0) >= 2) {
    total += rules.jack_columns_bonus;
  }
  if (rules.exact_score && total === rules.exact_score[0]) total = rules.exact_score[1];
  return total;
}

// Every seat's hole score as golfref scores it: gridScore, a failed knock's penalty (a tie for
// lowest fails), then in order closer_penalty (unless the one who ended the hole first is
// lowest), closer_bonus, low_score_bonus and last tie_penalty. `closer` and `knocker` are the view's.
function holeScores(rules, grids, closer, knocker, unseen) {
  const raw = grids.map((grid) => gridScore(rules, grid, unseen));
  let out = raw.slice();
  const isSet = (v) => v !== null && v !== undefined;
  if (isSet(knocker) && raw.some((v, s) => s !== knocker && v <= raw[knocker])) {
    out[knocker] += rules.knock_double ? Math.max(raw[knocker], 0) : rules.knock_penalty || 0;
  }
  const first = isSet(closer) ? closer : knocker;
  if (isSet(first) && isSet(rules.closer_penalty) && out[first] > Math.min(...out)) out[first] += rules.closer_penalty;
  if (isSet(first) && isSet(rules.closer_bonus)) out[first] += rules.closer_bonus;
  if (isSet(rules.low_score_bonus)) {
    const low = Math.min(...out);
    out = out.map((v) => (v === low ? v + rules.low_score_bonus : v));
  }
  if (isSet(rules.tie_penalty)) {
    const seen = out.slice();
    out = out.map((v) => (seen.filter((w) => w === v).length > 1 ? v + rules.tie_penalty : v));
  }
  return out;
}

function send(message) {
  // One line per message; the referee is waiting for it. No flush is needed: node writes
  // to a pipe at once, even while the event loop is busy afterwards.
  process.stdout.write(JSON.stringify(message) + "\n");
}

function play(choose, { name, version = "1", onNotice = null } = {}) {
  let rules = null;
  let time = null;
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on("line", (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch (e) {
      return; // golfref never sends a line that is not JSON
    }
    if (message === null || typeof message !== "object") return;
    if (message.type === "hello") {
      rules = message.rules;
      time = message.time;
      send({ type: "ready", name, version });
    } else if (message.type === "request") {
      const legal = message.legal;
      const view = Object.assign({}, message.view, {
        rules, time, events: message.events, requestId: message.id, timeMs: message.time_ms,
      });
      send({ type: "answer", id: message.id, action: choose(view, legal.slice()) });
    } else if (message.type === "goodbye") {
      input.close();
    } else if (onNotice !== null) {
      onNotice(message);
    }
  });
  // Exit on goodbye or when the referee closes stdin, whichever comes first.
  input.on("close", () => process.exit(0));
}

module.exports = { PROTOCOL, play, rankPoints, cardPoints, gridScore, holeScores };
