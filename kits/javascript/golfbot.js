// golfbot.js: the golfref bot protocol (version 2) for Node.js, no npm packages.
//
//   const golfbot = require("./golfbot");
//   golfbot.play((view, legal) => legal[0], { name: "my_bot" });
//
// play() reads golfref's messages on stdin, answers hello with ready, calls
// choose(view, legal) for every request and answers with what it returns. `view` is the
// request's view (docs/PROTOCOL.md) plus `rules` and `time` from hello, `events`,
// `requestId` and `timeMs`. A choose that throws, or returns something not in `legal`,
// costs a good move, never a fault: the error goes to stderr and legal[0] is answered.
// Unknown message types are ignored, as the protocol asks.

"use strict";

const readline = require("readline");

const PROTOCOL = 2;

// Points of each rank letter under the rules of hello ("X", a joker, only when jokers are on).
function rankPoints(rules) {
  const court = rules.court_values === "11/12";
  const points = { A: 1, 2: rules.twos, T: 10, J: court ? 11 : 10, Q: court ? 12 : 10, K: 0 };
  for (const r of "3456789") points[r] = Number(r);
  if (rules.jokers !== null) points.X = rules.jokers;
  return points;
}

function send(message) {
  // One line per message; the referee is waiting for it.
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
      let action;
      try {
        action = choose(view, legal.slice());
      } catch (e) {
        process.stderr.write(`golfbot: choose threw: ${e && e.stack ? e.stack : e}\n`);
        action = legal[0];
      }
      if (!legal.includes(action)) {
        process.stderr.write(`golfbot: choose returned ${JSON.stringify(action)}, not a legal choice; playing ${legal[0]}\n`);
        action = legal[0];
      }
      send({ type: "answer", id: message.id, action });
    } else if (message.type === "goodbye") {
      input.close();
    } else if (onNotice !== null) {
      onNotice(message);
    }
  });
  // Exit on goodbye or when the referee closes stdin, whichever comes first.
  input.on("close", () => process.exit(0));
}

module.exports = { PROTOCOL, play, rankPoints };
