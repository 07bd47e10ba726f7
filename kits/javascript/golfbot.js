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
// Unknown message types are ignored, as the protocol asks.

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
// them up once). What a whole grid adds to its cards' points (blocks, cancelled lines,
// joker_pair, negative_pairs, the column bonuses, exact_score) and the end-of-hole
// adjustments between players (closer_penalty, closer_bonus, low_score_bonus, tie_penalty)
// are not a card's: rules carries them for a bot to weigh.
function cardPoints(rules, card, unseen, ranks = rankPoints(rules)) {
  if (card === null || card === undefined) return unseen;
  const bySuit = rules.suit_values || {};
  const key = card.slice(0, 2);
  return Object.prototype.hasOwnProperty.call(bySuit, key) ? bySuit[key] : ranks[card[0]];
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

module.exports = { PROTOCOL, play, rankPoints, cardPoints };
