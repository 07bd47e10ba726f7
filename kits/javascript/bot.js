#!/usr/bin/env node
// The JavaScript starter bot: keeps low cards, swaps out its worst one. Edit choose().
// Run it as `node bot.js`; golfbot.js (next to this file) does the protocol.

"use strict";

const golfbot = require("./golfbot");

const UNSEEN = 5; // points a card this seat has not seen is guessed at

function choose(view, legal) {
  const ranks = golfbot.rankPoints(view.rules);
  const points = (card) => golfbot.cardPoints(view.rules, card, UNSEEN, ranks);
  const grid = view.grids[view.seat];
  let worst = 0;
  grid.forEach((card, slot) => {
    if (points(card) > points(grid[worst])) worst = slot;
  });
  if (view.decision === "draw") {
    const top = view.discard[view.discard.length - 1];
    if (legal.includes("discard") && points(top) < points(grid[worst]) - 2) return "discard";
    return "stock";
  }
  if (view.decision === "place") {
    if (points(view.drawn) < points(grid[worst])) return `swap:${worst}`;
    if (legal.includes("power")) return "power"; // a J, Q or K with card powers on: thrown away for its power
    return legal.includes("throw") ? "throw" : `swap:${worst}`;
  }
  if (view.decision === "flip") {
    // Turn up a card we have not seen: the flip then tells us something.
    const unseen = legal.filter((a) => a.startsWith("flip:") && grid[Number(a.slice(5))] === null);
    return unseen.length > 0 ? unseen[0] : legal[0];
  }
  if (view.decision === "target") {
    // A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
    const unseen = legal.filter((a) => {
      const [, seat, slot] = a.split(":").map(Number);
      return view.grids[seat][slot] === null;
    });
    return unseen.length > 0 ? unseen[0] : legal[0];
  }
  return legal[0]; // reveal: the first legal choice
}

golfbot.play(choose, { name: "javascript-starter", version: "1" });
