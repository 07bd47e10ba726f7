//! A bot on the Rust kit that answers every request with what the kit read
//! (tests/test_kit_rules.py): hello.rules as `Rules` holds it, and `points` of every card.
//! The test writes it as the kit's src/main.rs, beside the kit's own modules.

mod golfbot;
mod json;

use json::quote;

const UNSEEN: i64 = 1000; // no card is worth this: the test tells an unseen card by it

fn opt(v: Option<i64>) -> String {
    v.map_or("null".to_string(), |v| v.to_string())
}

fn echo(view: &golfbot::View) -> String {
    let r = view.rules;
    let points = |card: &Option<String>| r.points(card, UNSEEN).to_string();
    let list = |cards: Vec<String>| format!("[{}]", cards.join(", "));
    let card_values: Vec<String> = r.card_values.iter().map(|(k, v)| format!("{}: {}", quote(&(*k as char).to_string()), v)).collect();
    let suit_values: Vec<String> = r.suit_values.iter().map(|(k, v)| format!("{}: {}", quote(k), v)).collect();
    let fields = [
        ("preset", quote(&r.preset)),
        ("players", r.players.to_string()),
        ("rows", r.rows.to_string()),
        ("cols", r.cols.to_string()),
        ("decks", r.decks.to_string()),
        ("jokers", opt(r.jokers)),
        ("twos", r.twos.to_string()),
        ("court_values", quote(&r.court_values)),
        ("reveal_count", r.reveal_count.to_string()),
        ("reveal", quote(&r.reveal)),
        ("reveal_choice", quote(&r.reveal_choice)),
        ("flip_after_throw", quote(&r.flip_after_throw)),
        ("swap_face", quote(&r.swap_face)),
        ("knocking", r.knocking.to_string()),
        ("knock_penalty", opt(r.knock_penalty)),
        ("knock_double", r.knock_double.to_string()),
        ("lines", quote(&r.lines)),
        ("cancel", quote(&r.cancel)),
        ("pair_scope", quote(&r.pair_scope)),
        ("block_bonus", opt(r.block_bonus)),
        ("card_powers", r.card_powers.to_string()),
        ("holes", r.holes.to_string()),
        ("turn_limit", r.turn_limit.to_string()),
        ("card_values", format!("{{{}}}", card_values.join(", "))),
        ("suit_values", format!("{{{}}}", suit_values.join(", "))),
        ("joker_count", opt(r.joker_count)),
        ("joker_pair", opt(r.joker_pair)),
        ("negative_pairs", quote(&r.negative_pairs)),
        ("two_column_bonus", opt(r.two_column_bonus)),
        ("jack_columns_bonus", opt(r.jack_columns_bonus)),
        ("exact_score", r.exact_score.map_or("null".to_string(), |(n, m)| format!("[{}, {}]", n, m))),
        ("closer_penalty", opt(r.closer_penalty)),
        ("closer_bonus", opt(r.closer_bonus)),
        ("low_score_bonus", opt(r.low_score_bonus)),
        ("tie_penalty", opt(r.tie_penalty)),
        ("flip_instead_of_draw", r.flip_instead_of_draw.to_string()),
        ("flip_out", opt(r.flip_out)),
    ];
    let rules: Vec<String> = fields.iter().map(|(k, v)| format!("{}: {}", quote(k), v)).collect();
    let grids: Vec<String> = view.grids.iter().map(|g| list(g.iter().map(points).collect())).collect();
    let discard = list(view.discard.iter().map(|c| points(&Some(c.clone()))).collect());
    let grid_scores = list(view.grids.iter().map(|g| r.grid_score(g, UNSEEN).to_string()).collect());
    let hole_scores = list(r.hole_scores(&view.grids, view.closer, view.knocker, UNSEEN).iter().map(i64::to_string).collect());
    format!(
        "{{\"rules\": {{{}}}, \"grids\": [{}], \"discard\": {}, \"drawn\": {}, \"grid_scores\": {}, \"hole_scores\": {}}}",
        rules.join(", "),
        grids.join(", "),
        discard,
        points(&view.drawn),
        grid_scores,
        hole_scores
    )
}

fn main() {
    golfbot::play("rust-echo", "1", |view, _legal| echo(view));
}
