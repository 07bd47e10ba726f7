// A bot on the JavaScript kit that answers every request with what the kit read
// (tests/test_kit_rules.py): hello.rules as view.rules holds it, and cardPoints of every card.
"use strict";

const golfbot = require("./golfbot");

const UNSEEN = 1000; // no card is worth this: the test tells an unseen card by it

golfbot.play((view, legal) => {
  const ranks = golfbot.rankPoints(view.rules);
  const points = (card) => golfbot.cardPoints(view.rules, card, UNSEEN, ranks);
  const rules = Object.assign({}, view.rules);
  const [rows, cols] = rules.layout.split("x").map(Number);
  delete rules.layout;
  return JSON.stringify({
    rules: Object.assign(rules, { rows, cols }),
    grids: view.grids.map((grid) => grid.map(points)),
    discard: view.discard.map(points),
    drawn: points(view.drawn),
    grid_scores: view.grids.map((grid) => golfbot.gridScore(view.rules, grid, UNSEEN)),
    hole_scores: golfbot.holeScores(view.rules, view.grids, view.closer, view.knocker, UNSEEN),
  });
}, { name: "javascript-echo" });
