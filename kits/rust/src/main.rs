//! The Rust starter bot: keeps low cards, swaps out its worst one. Edit `choose`.
//! Build: rustc --edition 2021 -O -o bot src/main.rs   Run: ./bot

mod golfbot;
mod json;

use golfbot::View;

const UNSEEN: i64 = 5; // points a card this seat has not seen is guessed at

fn choose(view: &View, legal: &[String]) -> String {
    let has = |action: &str| legal.iter().any(|a| a == action);
    let grid = &view.grids[view.seat];
    let points = |card: &Option<String>| view.rules.points(card, UNSEEN);
    let mut worst = 0;
    for slot in 1..grid.len() {
        if points(&grid[slot]) > points(&grid[worst]) {
            worst = slot;
        }
    }
    let swap = format!("swap:{}", worst);
    match view.decision.as_str() {
        "draw" => {
            let top = view.discard.last().cloned();
            if has("discard") && points(&top) < points(&grid[worst]) - 2 {
                return "discard".into();
            }
            "stock".into()
        }
        "place" => {
            if points(&view.drawn) < points(&grid[worst]) || !has("throw") {
                swap
            } else if has("power") {
                "power".into() // a J, Q or K with card powers on: thrown away for its power
            } else {
                "throw".into()
            }
        }
        "flip" => {
            // Turn up a card we have not seen: the flip then tells us something.
            let unseen = legal.iter().find(|a| {
                a.strip_prefix("flip:").and_then(|n| n.parse::<usize>().ok()).map_or(false, |n| grid[n].is_none())
            });
            unseen.unwrap_or(&legal[0]).clone()
        }
        "target" => {
            // A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
            let unseen = legal.iter().find(|a| {
                let parts: Vec<usize> = a.split(':').skip(1).filter_map(|n| n.parse().ok()).collect();
                parts.len() == 2 && view.grids[parts[0]][parts[1]].is_none()
            });
            unseen.unwrap_or(&legal[0]).clone()
        }
        _ => legal[0].clone(), // reveal: the first legal choice
    }
}

fn main() {
    golfbot::play("rust-starter", "1", choose);
}
