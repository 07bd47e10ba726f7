#!/usr/bin/env node
// A Golf bot for golfref that plays a uniformly random legal action, for Node.js
// without npm packages. Protocol version 2: one JSON object per line on stdin/stdout.
//
//   hello    -> answer {"type": "ready", ...}
//   request  -> answer {"type": "answer", "id": <the request's id>, "action": <one of legal>}
//   goodbye  -> exit (end of input too)
//   anything else (hole_end, match_end, types added later) -> ignore

"use strict";

const readline = require("readline");

// Math.random cannot be seeded, so a tiny seeded generator (mulberry32) makes a match
// with this bot reproducible when GOLFREF_SEAT is set.
function mulberry32(seed) {
  return function () {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const seat = process.env.GOLFREF_SEAT;
const random = seat === undefined ? Math.random : mulberry32(Number(seat) + 1);

function send(message) {
  // One line per message; the referee is waiting for it.
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });

input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (e) {
    return; // not a message we can read; the referee never sends one
  }
  if (message === null || typeof message !== "object") return;
  if (message.type === "hello") {
    send({ type: "ready", name: "random_bot.js", version: "1.0" });
  } else if (message.type === "request") {
    const legal = message.legal;
    send({ type: "answer", id: message.id, action: legal[Math.floor(random() * legal.length)] });
  } else if (message.type === "goodbye") {
    input.close();
  }
  // Notices and unknown types need no answer: ignoring them keeps the bot working
  // with later protocol additions.
});

// Exit on goodbye or when the referee closes stdin, whichever comes first.
input.on("close", () => process.exit(0));
