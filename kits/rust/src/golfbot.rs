#![allow(dead_code)] // a library: a bot uses what it needs of it
//! The golfref bot protocol (version 3) for Rust bots, standard library only.
//!
//! Write a `choose(&View, &[String]) -> String` and hand it to `play`:
//!
//! ```ignore
//! golfbot::play("my_bot", "1", |view, legal| legal[0].clone());
//! ```
//!
//! `play` reads golfref's messages on stdin, answers hello with ready, builds a `View` for
//! every request and answers with what `choose` returns, as it is (one of `legal`, or the
//! referee records an illegal_action fault naming the legal choices). A panic in `choose`
//! is not caught: it ends the bot with the panic's message on stderr and exit status 101
//! (`RUST_BACKTRACE=1` in the bot's env adds the stack). Unknown message types are
//! ignored, as the protocol asks. Fields and JSON types are those of docs/PROTOCOL.md; a
//! card is a `String` such as "TH" or "XR#2", `None` where unseen; a JSON null is `None`.
//! `Rules::points`, `Rules::grid_score` and `Rules::hole_scores` score a card, a grid and a
//! hole as golfref does.

use crate::json::{self, Value};
use std::io::{self, BufRead, Write};

pub const PROTOCOL: i64 = 3;

pub type Card = String;

/// hello.rules.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    pub preset: String,
    pub players: usize,
    pub rows: usize,
    pub cols: usize,
    pub decks: i64,
    pub jokers: Option<i64>,
    pub twos: i64,
    pub court_values: String,
    pub reveal_count: i64,
    pub reveal: String,
    pub reveal_choice: String,
    pub flip_after_throw: String,
    pub swap_face: String,
    pub knocking: bool,
    pub knock_penalty: Option<i64>,
    pub knock_double: bool,
    pub lines: String,
    pub cancel: String,
    pub pair_scope: String,
    pub block_bonus: Option<i64>,
    pub card_powers: bool,
    pub holes: i64,
    pub turn_limit: i64,
    /// The whole card table by rank letter ("X": a joker), from hello (protocol 3).
    pub card_values: Vec<(u8, i64)>,
    /// Cards whose suit gives them other points ("JH"), over `card_values`.
    pub suit_values: Vec<(String, i64)>,
    // How a grid's cards add up beyond their points (docs/RULES.md#house-options): they need
    // the whole grid, which `grid_score` scores. None: off.
    /// Jokers in the whole shoe (None: two per deck).
    pub joker_count: Option<i64>,
    /// What a cancelled line of jokers scores in total.
    pub joker_pair: Option<i64>,
    /// "cancel", or "keep": a cancelled line with a negative card keeps its points.
    pub negative_pairs: String,
    pub two_column_bonus: Option<i64>,
    pub jack_columns_bonus: Option<i64>,
    /// (N, M): a grid score of exactly N becomes M.
    pub exact_score: Option<(i64, i64)>,
    // End-of-hole adjustments that compare the players' scores: `hole_scores` applies them.
    pub closer_penalty: Option<i64>,
    pub closer_bonus: Option<i64>,
    pub low_score_bonus: Option<i64>,
    pub tie_penalty: Option<i64>,
    pub flip_instead_of_draw: bool,
    pub flip_out: Option<i64>,
}

/// hello.time, in milliseconds (match_ms 0: no limit).
#[derive(Debug, Clone, Default)]
pub struct TimeControl {
    pub startup_ms: i64,
    pub move_ms: i64,
    pub bank_ms: i64,
    pub increment_ms: i64,
    pub grace_ms: i64,
    pub match_ms: i64,
}

/// A request's view, with the rules and time control of hello.
#[derive(Debug, Clone)]
pub struct View<'a> {
    pub rules: &'a Rules,
    pub time: &'a TimeControl,
    pub request_id: i64,
    pub time_ms: i64,
    pub seat: usize,
    pub hole: i64,
    pub starter: usize,
    pub to_move: usize,
    pub decision: String,
    pub grids: Vec<Vec<Option<Card>>>,
    pub face_up: Vec<Vec<bool>>,
    pub discard: Vec<Card>,
    pub stock_size: i64,
    pub drawn: Option<Card>,
    pub drawn_from: Option<String>,
    pub power: Option<String>,
    pub first_target: Option<(usize, usize)>,
    pub closer: Option<usize>,
    pub knocker: Option<usize>,
    pub turns: Vec<i64>,
    pub totals: Vec<i64>,
    /// The request's events, as JSON.
    pub events: Vec<Value>,
}

impl Rules {
    /// Points of a card under these rules; an unseen card (None) counts `unseen`: its suit's
    /// own value (`suit_values`) where it has one, else its rank's in the card table.
    pub fn points(&self, card: &Option<Card>, unseen: i64) -> i64 {
        let card = match card {
            Some(card) => card,
            None => return unseen,
        };
        if let Some((_, v)) = self.suit_values.iter().find(|(c, _)| card.starts_with(c.as_str())) {
            return *v;
        }
        if let Some((_, v)) = self.card_values.iter().find(|(r, _)| *r == card.as_bytes()[0]) {
            return *v;
        }
        let court = self.court_values == "11/12";
        match card.as_bytes()[0] {
            b'A' => 1,
            b'2' => self.twos,
            b'T' => 10,
            b'J' => if court { 11 } else { 10 },
            b'Q' => if court { 12 } else { 10 },
            b'K' => 0,
            b'X' => self.jokers.unwrap_or(0),
            d => (d - b'0') as i64,
        }
    }
}

impl Rules {
    /// The lines that cancel (cancel: line) or the pair groups (cancel: pairs), in golfref's
    /// scan order: (whether it is a column, its slots).
    fn groups(&self) -> Vec<(bool, Vec<usize>)> {
        let (rows, cols) = (self.rows, self.cols);
        if self.cancel == "pairs" && self.pair_scope == "grid" {
            let all: Vec<usize> = (0..rows * cols).collect();
            return if all.len() >= 2 { vec![(false, all)] } else { Vec::new() };
        }
        let line = self.cancel == "line";
        let with_rows = if line { self.lines != "columns" } else { self.pair_scope == "columns+rows" };
        let mut out: Vec<(bool, Vec<usize>)> = (0..cols).map(|c| (true, (0..rows).map(|r| r * cols + c).collect())).collect();
        if with_rows {
            out.extend((0..rows).map(|r| (false, (0..cols).map(|c| r * cols + c).collect())));
        }
        if line && self.lines == "columns+rows+diagonals" && rows == cols {
            out.push((false, (0..rows).map(|i| i * cols + i).collect()));
            out.push((false, (0..rows).map(|i| i * cols + cols - 1 - i).collect()));
        }
        out.into_iter().filter(|g| g.1.len() >= 2).collect() // a line of one card is no line
    }

    /// A grid's score as golfref scores it (docs/RULES.md, "Card values and scoring"),
    /// `exact_score` applied: blocks, cancelled lines or pairs, `joker_pair`, `negative_pairs`
    /// and the column bonuses all count. An unseen card (None) counts `unseen` and cancels with
    /// nothing: the score of a grid with one is an estimate. The adjustments between players
    /// need every grid: `hole_scores`.
    pub fn grid_score(&self, grid: &[Option<Card>], unseen: i64) -> i64 {
        let (rows, cols) = (self.rows, self.cols);
        let ranks: Vec<Option<u8>> = grid.iter().map(|c| c.as_ref().map(|c| c.as_bytes()[0])).collect();
        let mut points: Vec<i64> = grid.iter().map(|c| self.points(c, unseen)).collect();
        let own = points.clone(); // a card is negative by its own points, not by a block's share
        let mut done = vec![false; grid.len()]; // a block card keeps its share, whatever line runs through it
        if let (Some(bonus), true) = (self.block_bonus, rows >= 2 && cols >= 2) {
            for r in 0..rows - 1 {
                for c in 0..cols - 1 {
                    let square = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1];
                    let first = ranks[square[0]];
                    if first.is_none() || square.iter().any(|&s| done[s] || ranks[s] != first) {
                        continue;
                    }
                    for (i, &s) in square.iter().enumerate() {
                        done[s] = true;
                        points[s] = shares(bonus, 4)[i];
                    }
                }
            }
        }
        let mut cancelled: Vec<(bool, Vec<usize>)> = Vec::new();
        for (column, slots) in self.groups() {
            if self.cancel == "line" {
                let first = ranks[slots[0]];
                if first.is_some() && slots.iter().all(|&s| ranks[s] == first) {
                    cancelled.push((column, slots));
                }
            } else {
                let hit: Vec<usize> = slots
                    .iter()
                    .copied()
                    .filter(|&s| ranks[s].is_some() && slots.iter().filter(|&&t| ranks[t] == ranks[s]).count() >= 2)
                    .collect();
                if !hit.is_empty() {
                    cancelled.push((column, hit));
                }
            }
        }
        let mut columns: Vec<(u8, i64)> = Vec::new();
        for (column, slots) in &cancelled {
            // Under cancel: pairs each rank's cards are a line of their own, in the order they first come.
            let mut lines: Vec<(u8, Vec<usize>)> = Vec::new();
            for &s in slots {
                if let Some(rank) = ranks[s] {
                    match lines.iter_mut().find(|(r, _)| *r == rank) {
                        Some((_, line)) => line.push(s),
                        None => lines.push((rank, vec![s])),
                    }
                }
            }
            for (rank, line) in lines {
                if *column {
                    match columns.iter_mut().find(|(r, _)| *r == rank) {
                        Some((_, n)) => *n += 1,
                        None => columns.push((rank, 1)),
                    }
                }
                // A card a block or an earlier line decided keeps what it got there.
                if let (Some(pair), b'X') = (self.joker_pair, rank) {
                    for (&s, share) in line.iter().zip(shares(pair, line.len() as i64)) {
                        if !done[s] {
                            points[s] = share;
                        }
                    }
                } else if !(self.negative_pairs == "keep" && line.iter().any(|&s| own[s] < 0)) {
                    for &s in &line {
                        if !done[s] {
                            points[s] = 0;
                        }
                    }
                }
                for &s in &line {
                    done[s] = true;
                }
            }
        }
        let mut total: i64 = points.iter().sum();
        if let Some(bonus) = self.two_column_bonus {
            total += bonus * columns.iter().filter(|(_, n)| *n >= 2).count() as i64;
        }
        if let Some(bonus) = self.jack_columns_bonus {
            if columns.iter().any(|(r, n)| *r == b'J' && *n >= 2) {
                total += bonus;
            }
        }
        match self.exact_score {
            Some((from, to)) if total == from => to,
            _ => total,
        }
    }

    /// Every seat's hole score as golfref scores it: `grid_score`, a failed knock's penalty (a
    /// tie for lowest fails), then in order `closer_penalty` (unless the one who ended the hole
    /// first is lowest), `closer_bonus`, `low_score_bonus` and last `tie_penalty`. `closer` and
    /// `knocker` are the view's.
    pub fn hole_scores(&self, grids: &[Vec<Option<Card>>], closer: Option<usize>, knocker: Option<usize>, unseen: i64) -> Vec<i64> {
        let raw: Vec<i64> = grids.iter().map(|g| self.grid_score(g, unseen)).collect();
        let mut out = raw.clone();
        if let Some(k) = knocker {
            if raw.iter().enumerate().any(|(s, &v)| s != k && v <= raw[k]) {
                out[k] += if self.knock_double { raw[k].max(0) } else { self.knock_penalty.unwrap_or(0) };
            }
        }
        let first = closer.or(knocker);
        let low = *out.iter().min().unwrap_or(&0);
        if let (Some(f), Some(p)) = (first, self.closer_penalty) {
            if out[f] > low {
                out[f] += p;
            }
        }
        if let (Some(f), Some(b)) = (first, self.closer_bonus) {
            out[f] += b;
        }
        if let Some(b) = self.low_score_bonus {
            let low = *out.iter().min().unwrap_or(&0);
            out = out.iter().map(|&v| if v == low { v + b } else { v }).collect();
        }
        if let Some(p) = self.tie_penalty {
            let before = out.clone();
            out = before.iter().map(|&v| if before.iter().filter(|&&w| w == v).count() > 1 { v + p } else { v }).collect();
        }
        out
    }
}

/// `total` split over `n` cards as golfref splits a block's or a joker pair's total (Python's divmod).
fn shares(total: i64, n: i64) -> Vec<i64> {
    let share = total.div_euclid(n);
    let rest = total - share * n;
    (0..n).map(|i| share + if i < rest { 1 } else { 0 }).collect()
}

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::str).unwrap_or("").to_string()
}
fn int(v: Option<&Value>) -> i64 {
    v.and_then(Value::int).unwrap_or(0)
}
fn flag(v: Option<&Value>) -> bool {
    v.and_then(Value::bool).unwrap_or(false)
}
fn card(v: &Value) -> Option<Card> {
    v.str().map(str::to_string)
}
fn seat(v: Option<&Value>) -> Option<usize> {
    v.and_then(Value::int).map(|s| s as usize)
}

fn read_rules(r: &Value) -> Rules {
    let layout = text(r.get("layout"));
    let (rows, cols) = layout.split_once('x').unwrap_or(("0", "0"));
    Rules {
        preset: text(r.get("preset")),
        players: int(r.get("players")) as usize,
        rows: rows.parse().unwrap_or(0),
        cols: cols.parse().unwrap_or(0),
        decks: int(r.get("decks")),
        jokers: r.get("jokers").and_then(Value::int),
        twos: int(r.get("twos")),
        court_values: text(r.get("court_values")),
        reveal_count: int(r.get("reveal_count")),
        reveal: text(r.get("reveal")),
        reveal_choice: text(r.get("reveal_choice")),
        flip_after_throw: text(r.get("flip_after_throw")),
        swap_face: text(r.get("swap_face")),
        knocking: flag(r.get("knocking")),
        knock_penalty: r.get("knock_penalty").and_then(Value::int),
        knock_double: flag(r.get("knock_double")),
        lines: text(r.get("lines")),
        cancel: text(r.get("cancel")),
        pair_scope: text(r.get("pair_scope")),
        block_bonus: r.get("block_bonus").and_then(Value::int),
        card_powers: flag(r.get("card_powers")),
        holes: int(r.get("holes")),
        turn_limit: int(r.get("turn_limit")),
        card_values: b"A23456789TJQKX"
            .iter()
            .filter_map(|&rank| {
                let key = (rank as char).to_string();
                r.get("card_values").and_then(|t| t.get(&key)).and_then(Value::int).map(|v| (rank, v))
            })
            .collect(),
        suit_values: "A23456789TJQK"
            .chars()
            .flat_map(|rank| "SHDC".chars().map(move |suit| format!("{}{}", rank, suit)))
            .filter_map(|key| {
                let v = r.get("suit_values").and_then(|t| t.get(&key)).and_then(Value::int);
                v.map(|v| (key, v))
            })
            .collect(),
        joker_count: r.get("joker_count").and_then(Value::int),
        joker_pair: r.get("joker_pair").and_then(Value::int),
        // A protocol-2 hello has no house options: "cancel" is the neutral value.
        negative_pairs: r.get("negative_pairs").and_then(Value::str).unwrap_or("cancel").to_string(),
        two_column_bonus: r.get("two_column_bonus").and_then(Value::int),
        jack_columns_bonus: r.get("jack_columns_bonus").and_then(Value::int),
        exact_score: r
            .get("exact_score")
            .and_then(|e| Some((e.at(0)?.int()?, e.at(1)?.int()?))),
        closer_penalty: r.get("closer_penalty").and_then(Value::int),
        closer_bonus: r.get("closer_bonus").and_then(Value::int),
        low_score_bonus: r.get("low_score_bonus").and_then(Value::int),
        tie_penalty: r.get("tie_penalty").and_then(Value::int),
        flip_instead_of_draw: flag(r.get("flip_instead_of_draw")),
        flip_out: r.get("flip_out").and_then(Value::int),
    }
}

fn read_time(t: &Value) -> TimeControl {
    TimeControl {
        startup_ms: int(t.get("startup_ms")),
        move_ms: int(t.get("move_ms")),
        bank_ms: int(t.get("bank_ms")),
        increment_ms: int(t.get("increment_ms")),
        grace_ms: int(t.get("grace_ms")),
        match_ms: int(t.get("match_ms")),
    }
}

fn read_view<'a>(request: &Value, rules: &'a Rules, time: &'a TimeControl) -> View<'a> {
    let null = Value::Null;
    let v = request.get("view").unwrap_or(&null);
    let ints = |key: &str| v.get(key).map(|a| a.items().iter().map(|x| x.int().unwrap_or(0)).collect()).unwrap_or_default();
    let first = v.get("first_target").filter(|f| **f != Value::Null);
    View {
        rules,
        time,
        request_id: int(request.get("id")),
        time_ms: int(request.get("time_ms")),
        seat: int(v.get("seat")) as usize,
        hole: int(v.get("hole")),
        starter: int(v.get("starter")) as usize,
        to_move: int(v.get("to_move")) as usize,
        decision: text(v.get("decision")),
        grids: v.get("grids").map(|g| g.items().iter().map(|row| row.items().iter().map(card).collect()).collect()).unwrap_or_default(),
        face_up: v.get("face_up").map(|g| g.items().iter().map(|row| row.items().iter().map(|x| x.bool().unwrap_or(false)).collect()).collect()).unwrap_or_default(),
        discard: v.get("discard").map(|d| d.items().iter().filter_map(card).collect()).unwrap_or_default(),
        stock_size: int(v.get("stock_size")),
        drawn: v.get("drawn").and_then(card),
        drawn_from: v.get("drawn_from").and_then(card),
        power: v.get("power").and_then(card),
        first_target: first.map(|f| (int(f.at(0)) as usize, int(f.at(1)) as usize)),
        closer: seat(v.get("closer")),
        knocker: seat(v.get("knocker")),
        turns: ints("turns"),
        totals: ints("totals"),
        events: request.get("events").map(|e| e.items().to_vec()).unwrap_or_default(),
    }
}

/// Play one match on stdin/stdout: ready on hello, `choose` on every request, stop at goodbye.
pub fn play<F: FnMut(&View, &[String]) -> String>(name: &str, version: &str, mut choose: F) {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut setup: Option<(Rules, TimeControl)> = None;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let message = match json::parse(&line) {
            Some(message) => message,
            None => continue, // golfref never sends a line that is not JSON
        };
        match message.get("type").and_then(Value::str) {
            Some("hello") => {
                let null = Value::Null;
                setup = Some((read_rules(message.get("rules").unwrap_or(&null)), read_time(message.get("time").unwrap_or(&null))));
                let _ = writeln!(out, "{{\"type\": \"ready\", \"name\": {}, \"version\": {}}}", json::quote(name), json::quote(version));
                let _ = out.flush();
            }
            Some("request") => {
                let (rules, time) = match &setup {
                    Some(setup) => setup,
                    None => continue,
                };
                let legal: Vec<String> = message.get("legal").map(|l| l.items().iter().filter_map(|a| a.str().map(str::to_string)).collect()).unwrap_or_default();
                let view = read_view(&message, rules, time);
                let action = choose(&view, &legal);
                let _ = writeln!(out, "{{\"type\": \"answer\", \"id\": {}, \"action\": {}}}", view.request_id, json::quote(&action));
                let _ = out.flush();
            }
            Some("goodbye") => break,
            _ => {} // notices (hole_end, match_end) and unknown types need no answer
        }
    }
}
