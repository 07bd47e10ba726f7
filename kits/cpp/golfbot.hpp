// golfbot.hpp: the golfref bot protocol (version 3) for C++ bots (C++17, standard library only).
//
// Write a choose function and hand it to play from main:
//
//     #include "golfbot.hpp"
//
//     std::string choose(const golfbot::View &view, const std::vector<std::string> &legal) {
//         return legal.front();
//     }
//     int main() { return golfbot::play("my_bot", "1", choose); }
//
// play reads golfref's messages on stdin, answers hello with ready, builds a View for every
// request, calls choose and answers with what it returns, as it is (one of `legal`, or the
// referee records an illegal_action fault naming the legal choices). An exception that escapes
// choose ends the bot: play writes it on stderr and returns 1, the exit status main returns.
// (Left uncaught, it would abort the process with a signal, and perhaps a core file, saying
// less.) So does a line from golfref that is not the JSON the protocol describes. Notices (hole_end, match_end) and unknown message types are ignored, as the protocol
// asks; goodbye or the end of input ends play. Each line is flushed as it is written: stdout
// is a pipe, and a line left in its buffer never reaches golfref. Print debugging output on
// std::cerr, never std::cout.
//
// The fields and their JSON types are those of docs/PROTOCOL.md. A card is a std::string such
// as "TH" or "XR#2"; a card this seat has not seen, and every other field a request may leave
// null, is an empty std::optional. points, grid_score and hole_scores score a card, a grid and
// a hole as golfref does. Part of the golfref C++ starter kit (MIT licence, as golfref).
#ifndef GOLFREF_GOLFBOT_HPP
#define GOLFREF_GOLFBOT_HPP

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "json.hpp"

namespace golfbot {

inline constexpr int PROTOCOL = 3;

// A card as the protocol writes it: rank (A 2-9 T J Q K, X for a joker), suit, "#2" to "#4" for a later deck.
using Card = std::string;
// One seat's grid, row-major; std::nullopt where this seat has not seen the card.
using Grid = std::vector<std::optional<Card>>;

namespace detail {

// Readers of one field: absent or null gives the neutral value; a value of another JSON type
// than the protocol's is an error (json::Error), not a guess.
inline int number(const json::Value &v, int otherwise) { return v.is_null() ? otherwise : static_cast<int>(v.as_int()); }
inline long long big_number(const json::Value &v) { return v.is_null() ? 0 : v.as_int(); }
inline std::optional<int> number_or_null(const json::Value &v) {
    if (v.is_null()) return std::nullopt;
    return static_cast<int>(v.as_int());
}
inline std::string text(const json::Value &v, const std::string &otherwise = "") { return v.is_null() ? otherwise : v.as_string(); }
inline std::optional<std::string> text_or_null(const json::Value &v) {
    if (v.is_null()) return std::nullopt;
    return v.as_string();
}
inline bool flag(const json::Value &v) { return !v.is_null() && v.as_bool(); }
template <class Read>
auto list(const json::Value &v, Read read) {
    std::vector<decltype(read(v))> out;
    if (!v.is_null())
        for (const json::Value &item : v.as_array()) out.push_back(read(item));
    return out;
}
inline std::optional<std::pair<int, int>> pair_or_null(const json::Value &v) {
    if (v.is_null()) return std::nullopt;
    if (v.size() != 2) throw json::Error("golfbot: expected two numbers, got " + v.dump());
    return std::make_pair(static_cast<int>(v[0].as_int()), static_cast<int>(v[1].as_int()));
}

}  // namespace detail

// hello.rules (docs/PROTOCOL.md#hellorules). A field that can be off (JSON null) is a std::optional.
struct Rules {
    std::string preset;
    int players = 2;
    int rows = 0, cols = 0;  // the layout, "ROWSxCOLS"
    int decks = 1;
    std::optional<int> jokers;  // the points of a joker; off: no jokers
    int twos = -2;
    std::string court_values;  // the points of J and Q: "10/10" or "11/12"
    int reveal_count = 0;
    std::string reveal, reveal_choice, flip_after_throw, swap_face;
    bool knocking = false;
    std::optional<int> knock_penalty;  // off exactly when knock_double
    bool knock_double = false;
    std::string lines, cancel, pair_scope;
    std::optional<int> block_bonus;
    bool card_powers = false;
    int holes = 1, turn_limit = 1;
    // The house options (protocol 3; docs/RULES.md#house-options).
    std::map<char, int> card_values;         // the whole card table by rank code ('X': a joker)
    std::map<std::string, int> suit_values;  // one rank of one suit ("JH") worth other points, over card_values
    // How a grid's cards add up beyond their points: they need the whole grid, which grid_score scores.
    std::optional<int> joker_count;  // jokers in the whole shoe; off: two per deck
    std::optional<int> joker_pair;   // what a cancelled line of jokers scores in total
    std::string negative_pairs = "cancel";  // or "keep": a cancelled line with a negative card keeps its points
    std::optional<int> two_column_bonus, jack_columns_bonus;
    std::optional<std::pair<int, int>> exact_score;  // a grid score of exactly first becomes second
    // End-of-hole adjustments that compare the players' scores: hole_scores applies them.
    std::optional<int> closer_penalty, closer_bonus, low_score_bonus, tie_penalty;
    bool flip_instead_of_draw = false;
    std::optional<int> flip_out;

    // Cards in every grid.
    int cards() const { return rows * cols; }

    // The rules of a hello message. Fields a later version adds are ignored, and a hello of
    // protocol 2 (no house options) reads with every house option off.
    static Rules from_json(const json::Value &r) {
        using namespace detail;
        Rules out;
        out.preset = text(r["preset"]);
        out.players = number(r["players"], out.players);
        const std::string layout = text(r["layout"], "0x0");
        const std::size_t x = layout.find('x');
        try {
            if (x == std::string::npos) throw std::invalid_argument(layout);
            out.rows = std::stoi(layout.substr(0, x));
            out.cols = std::stoi(layout.substr(x + 1));
        } catch (const std::logic_error &) {  // stoi's invalid_argument and out_of_range
            throw json::Error("golfbot: layout " + json::quote(layout) + " is not ROWSxCOLS");
        }
        out.decks = number(r["decks"], out.decks);
        out.jokers = number_or_null(r["jokers"]);
        out.twos = number(r["twos"], out.twos);
        out.court_values = text(r["court_values"], "10/10");
        out.reveal_count = number(r["reveal_count"], 0);
        out.reveal = text(r["reveal"]);
        out.reveal_choice = text(r["reveal_choice"]);
        out.flip_after_throw = text(r["flip_after_throw"]);
        out.swap_face = text(r["swap_face"]);
        out.knocking = flag(r["knocking"]);
        out.knock_penalty = number_or_null(r["knock_penalty"]);
        out.knock_double = flag(r["knock_double"]);
        out.lines = text(r["lines"], "columns");
        out.cancel = text(r["cancel"], "line");
        out.pair_scope = text(r["pair_scope"], "columns");
        out.block_bonus = number_or_null(r["block_bonus"]);
        out.card_powers = flag(r["card_powers"]);
        out.holes = number(r["holes"], out.holes);
        out.turn_limit = number(r["turn_limit"], out.turn_limit);
        if (!r["card_values"].is_null())
            for (const auto &[rank, points] : r["card_values"].as_object())
                if (rank.size() == 1) out.card_values[rank[0]] = static_cast<int>(points.as_int());
        if (!r["suit_values"].is_null())
            for (const auto &[card, points] : r["suit_values"].as_object())
                out.suit_values[card] = static_cast<int>(points.as_int());
        out.joker_count = number_or_null(r["joker_count"]);
        out.joker_pair = number_or_null(r["joker_pair"]);
        out.negative_pairs = text(r["negative_pairs"], out.negative_pairs);
        out.two_column_bonus = number_or_null(r["two_column_bonus"]);
        out.jack_columns_bonus = number_or_null(r["jack_columns_bonus"]);
        out.exact_score = pair_or_null(r["exact_score"]);
        out.closer_penalty = number_or_null(r["closer_penalty"]);
        out.closer_bonus = number_or_null(r["closer_bonus"]);
        out.low_score_bonus = number_or_null(r["low_score_bonus"]);
        out.tie_penalty = number_or_null(r["tie_penalty"]);
        out.flip_instead_of_draw = flag(r["flip_instead_of_draw"]);
        out.flip_out = number_or_null(r["flip_out"]);
        return out;
    }
};

// hello.time, in milliseconds (match_ms 0: no limit for the whole match).
struct Time {
    long long startup_ms = 0, move_ms = 0, bank_ms = 0, increment_ms = 0, grace_ms = 0, match_ms = 0;

    static Time from_json(const json::Value &t) {
        using detail::big_number;
        return Time{big_number(t["startup_ms"]), big_number(t["move_ms"]),      big_number(t["bank_ms"]),
                    big_number(t["increment_ms"]), big_number(t["grace_ms"]), big_number(t["match_ms"])};
    }
};

// A request's view of the table (docs/PROTOCOL.md#the-view), its events, and hello's rules and time.
// Every vector with one entry per seat is indexed by seat number.
struct View {
    Rules rules;
    Time time;
    long long request_id = 0;
    long long time_ms = 0;  // what this decision may take: the per-decision limit plus the bank
    int seat = 0, hole = 0, starter = 0;
    std::optional<int> to_move;
    std::string decision;  // reveal, draw, place, flip or target
    std::vector<Grid> grids;  // a peeked or learned card shows although face down: face_up tells them apart
    std::vector<std::vector<bool>> face_up;
    std::vector<Card> discard;  // bottom first: back() is the top
    int stock_size = 0;
    std::optional<Card> drawn;              // the card in hand
    std::optional<std::string> drawn_from;  // "stock" or "discard"
    std::optional<std::string> power;       // "J", "Q" or "K" while one is used
    std::optional<std::pair<int, int>> first_target;  // a king's first card: seat, slot
    std::optional<int> closer, knocker;
    std::vector<int> turns, totals;
    std::vector<std::vector<int>> hole_scores;  // finished holes, then seats
    std::vector<json::Value> events;  // since this seat's previous request (docs/PROTOCOL.md#events)

    // This seat's own grid.
    const Grid &grid() const { return grids.at(static_cast<std::size_t>(seat)); }

    static View from_request(const json::Value &request, const Rules &rules, const Time &time) {
        using namespace detail;
        const json::Value &v = request["view"];
        auto card = [](const json::Value &c) { return text_or_null(c); };
        auto integer = [](const json::Value &n) { return static_cast<int>(n.as_int()); };
        View out;
        out.rules = rules;
        out.time = time;
        out.request_id = request["id"].as_int();
        out.time_ms = big_number(request["time_ms"]);
        out.seat = number(v["seat"], 0);
        out.hole = number(v["hole"], 0);
        out.starter = number(v["starter"], 0);
        out.to_move = number_or_null(v["to_move"]);
        out.decision = text(v["decision"]);
        out.grids = list(v["grids"], [&](const json::Value &g) { return list(g, card); });
        out.face_up = list(v["face_up"], [](const json::Value &g) { return list(g, [](const json::Value &u) { return u.as_bool(); }); });
        out.discard = list(v["discard"], [](const json::Value &c) { return c.as_string(); });
        out.stock_size = number(v["stock_size"], 0);
        out.drawn = text_or_null(v["drawn"]);
        out.drawn_from = text_or_null(v["drawn_from"]);
        out.power = text_or_null(v["power"]);
        out.first_target = pair_or_null(v["first_target"]);
        out.closer = number_or_null(v["closer"]);
        out.knocker = number_or_null(v["knocker"]);
        out.turns = list(v["turns"], integer);
        out.totals = list(v["totals"], integer);
        out.hole_scores = list(v["hole_scores"], [&](const json::Value &h) { return list(h, integer); });
        out.events = list(request["events"], [](const json::Value &e) { return e; });
        return out;
    }
};

// The points of a card of rank code `rank`: hello's card_values (the whole table, protocol 3),
// else worked out from twos, court_values and jokers (a hello of protocol 2).
inline int rank_points(const Rules &rules, char rank) {
    if (!rules.card_values.empty()) {
        auto found = rules.card_values.find(rank);
        if (found == rules.card_values.end())
            throw std::out_of_range(std::string("golfbot: no card of rank ") + rank + " is in play under these rules");
        return found->second;
    }
    const bool court = rules.court_values == "11/12";
    switch (rank) {
        case 'A': return 1;
        case '2': return rules.twos;
        case 'T': return 10;
        case 'J': return court ? 11 : 10;
        case 'Q': return court ? 12 : 10;
        case 'K': return 0;
        case 'X':
            if (rules.jokers) return *rules.jokers;
            throw std::out_of_range("golfbot: a joker is not in play: jokers are off");
        default:
            if (rank >= '3' && rank <= '9') return rank - '0';
            throw std::out_of_range(std::string("golfbot: ") + rank + " is not a rank");
    }
}

// The points of a card under `rules`; an unseen card (std::nullopt) counts `unseen`: its suit's
// own value (suit_values, "JH") where it has one, else its rank's (rank_points). What a whole
// grid and the table add is grid_score's and hole_scores' work.
inline int points(const Rules &rules, const std::optional<Card> &card, int unseen) {
    if (!card) return unseen;
    if (card->empty()) throw std::invalid_argument("golfbot: an empty card");
    auto by_suit = rules.suit_values.find(card->substr(0, 2));  // "JH#2" is a jack of hearts too
    return by_suit != rules.suit_values.end() ? by_suit->second : rank_points(rules, (*card)[0]);
}

namespace detail {

// A line that cancels (cancel: line) or a pair group (cancel: pairs).
struct Group {
    bool column;
    std::vector<std::size_t> slots;
};

// The groups of a grid under `r`, in golfref's scan order: columns, rows, diagonals.
inline std::vector<Group> groups(const Rules &r) {
    const auto rows = static_cast<std::size_t>(r.rows), cols = static_cast<std::size_t>(r.cols);
    std::vector<Group> out;
    if (r.cancel == "pairs" && r.pair_scope == "grid") {
        Group all{false, {}};
        for (std::size_t s = 0; s < rows * cols; ++s) all.slots.push_back(s);
        out.push_back(all);
    } else {
        const bool line = r.cancel == "line";
        const bool with_rows = line ? r.lines != "columns" : r.pair_scope == "columns+rows";
        for (std::size_t c = 0; c < cols; ++c) {
            Group column{true, {}};
            for (std::size_t i = 0; i < rows; ++i) column.slots.push_back(i * cols + c);
            out.push_back(column);
        }
        for (std::size_t i = 0; with_rows && i < rows; ++i) {
            Group row{false, {}};
            for (std::size_t c = 0; c < cols; ++c) row.slots.push_back(i * cols + c);
            out.push_back(row);
        }
        if (line && r.lines == "columns+rows+diagonals" && rows == cols) {
            Group down{false, {}}, up{false, {}};
            for (std::size_t i = 0; i < rows; ++i) {
                down.slots.push_back(i * cols + i);
                up.slots.push_back(i * cols + cols - 1 - i);
            }
            out.push_back(down);
            out.push_back(up);
        }
    }
    // A line of one card is no line: it would cancel every card of a one-row grid.
    out.erase(std::remove_if(out.begin(), out.end(), [](const Group &g) { return g.slots.size() < 2; }), out.end());
    return out;
}

// `total` split over `n` cards as golfref splits a block's or a joker pair's total: Python's
// divmod (rounding down, also below zero), the first cards getting 1 more.
inline std::vector<int> shares(int total, int n) {
    int share = total / n;
    if (total % n != 0 && total < 0) --share;
    const int rest = total - share * n;
    std::vector<int> out;
    for (int i = 0; i < n; ++i) out.push_back(share + (i < rest ? 1 : 0));
    return out;
}

}  // namespace detail

// A grid's score as golfref scores it (docs/RULES.md, "Card values and scoring"), exact_score
// applied: blocks, cancelled lines or pairs, joker_pair, negative_pairs and the column bonuses
// all count. An unseen card counts `unseen` and cancels with nothing: the score of a grid with
// one is an estimate. The adjustments between players need every grid: hole_scores.
inline int grid_score(const Rules &rules, const Grid &grid, int unseen) {
    const auto rows = static_cast<std::size_t>(rules.rows), cols = static_cast<std::size_t>(rules.cols);
    if (grid.size() != rows * cols)
        throw std::invalid_argument("golfbot: a " + std::to_string(rows) + "x" + std::to_string(cols) + " grid has " +
                                    std::to_string(rows * cols) + " cards, not " + std::to_string(grid.size()));
    std::vector<std::optional<char>> ranks;
    std::vector<int> pts;
    for (const auto &card : grid) {
        ranks.push_back(card ? std::optional<char>((*card)[0]) : std::nullopt);
        pts.push_back(points(rules, card, unseen));
    }
    const std::vector<int> own = pts;  // a card is negative by its own points, not by a block's share
    std::vector<bool> done(grid.size(), false);  // a block card keeps its share, whatever line runs through it
    if (rules.block_bonus && rows >= 2 && cols >= 2) {
        for (std::size_t r = 0; r + 1 < rows; ++r)
            for (std::size_t c = 0; c + 1 < cols; ++c) {
                const std::size_t square[4] = {r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1};
                const auto first = ranks[square[0]];
                if (!first || std::any_of(std::begin(square), std::end(square),
                                          [&](std::size_t s) { return done[s] || ranks[s] != first; }))
                    continue;
                const std::vector<int> share = detail::shares(*rules.block_bonus, 4);
                for (std::size_t i = 0; i < 4; ++i) {
                    done[square[i]] = true;
                    pts[square[i]] = share[i];
                }
            }
    }
    std::vector<detail::Group> cancelled;
    for (const detail::Group &group : detail::groups(rules)) {
        const auto &slots = group.slots;
        if (rules.cancel == "line") {
            const auto first = ranks[slots[0]];
            if (first && std::all_of(slots.begin(), slots.end(), [&](std::size_t s) { return ranks[s] == first; }))
                cancelled.push_back(group);
        } else {
            // Pairs: every card whose rank is there twice or more.
            detail::Group hit{group.column, {}};
            for (std::size_t s : slots) {
                auto same = std::count_if(slots.begin(), slots.end(), [&](std::size_t t) { return ranks[t] == ranks[s]; });
                if (ranks[s] && same >= 2) hit.slots.push_back(s);
            }
            if (!hit.slots.empty()) cancelled.push_back(hit);
        }
    }
    std::map<char, int> columns;  // how many cancelled columns each rank cancels in
    const bool keep = rules.negative_pairs == "keep";
    for (const detail::Group &group : cancelled) {
        // Under cancel: pairs each rank's cards are a line of their own, in the order they first come.
        std::vector<std::pair<char, std::vector<std::size_t>>> lines;
        for (std::size_t s : group.slots) {
            auto line = std::find_if(lines.begin(), lines.end(), [&](const auto &l) { return l.first == *ranks[s]; });
            if (line == lines.end()) lines.push_back({*ranks[s], {s}});
            else line->second.push_back(s);
        }
        for (const auto &[rank, line] : lines) {
            if (group.column) ++columns[rank];
            // A card a block or an earlier line decided keeps what it got there.
            if (rules.joker_pair && rank == 'X') {
                const std::vector<int> share = detail::shares(*rules.joker_pair, static_cast<int>(line.size()));
                for (std::size_t i = 0; i < line.size(); ++i)
                    if (!done[line[i]]) pts[line[i]] = share[i];
            } else if (!(keep && std::any_of(line.begin(), line.end(), [&](std::size_t s) { return own[s] < 0; }))) {
                for (std::size_t s : line)
                    if (!done[s]) pts[s] = 0;
            }
            for (std::size_t s : line) done[s] = true;
        }
    }
    int total = 0;
    for (int p : pts) total += p;
    for (const auto &[rank, n] : columns) {
        if (rules.two_column_bonus && n >= 2) total += *rules.two_column_bonus;
        if (rules.jack_columns_bonus && rank == 'J' && n >= 2) total += *rules.jack_columns_bonus;
    }
    if (rules.exact_score && total == rules.exact_score->first) total = rules.exact_score->second;
    return total;
}

// Every seat's hole score as golfref scores it: grid_score, a failed knock's penalty (a tie
// for lowest fails), then in order closer_penalty (unless the one who ended the hole first is
// lowest), closer_bonus, low_score_bonus and last tie_penalty (docs/RULES.md, "The order of
// end-of-hole adjustments"). `closer` and `knocker` are the view's.
inline std::vector<int> hole_scores(const Rules &rules, const std::vector<Grid> &grids, std::optional<int> closer,
                                    std::optional<int> knocker, int unseen) {
    std::vector<int> raw;
    for (const Grid &grid : grids) raw.push_back(grid_score(rules, grid, unseen));
    std::vector<int> out = raw;
    if (out.empty()) return out;
    if (knocker) {
        const auto k = static_cast<std::size_t>(*knocker);
        bool failed = false;
        for (std::size_t s = 0; s < raw.size(); ++s) failed = failed || (s != k && raw[s] <= raw.at(k));
        if (failed) out[k] += rules.knock_double ? std::max(raw[k], 0) : rules.knock_penalty.value_or(0);
    }
    const std::optional<int> first = closer ? closer : knocker;
    if (first) {
        auto &score = out.at(static_cast<std::size_t>(*first));
        if (rules.closer_penalty && score > *std::min_element(out.begin(), out.end())) score += *rules.closer_penalty;
        if (rules.closer_bonus) score += *rules.closer_bonus;
    }
    if (rules.low_score_bonus) {
        const int low = *std::min_element(out.begin(), out.end());
        for (int &score : out)
            if (score == low) score += *rules.low_score_bonus;
    }
    if (rules.tie_penalty) {
        const std::vector<int> before = out;
        for (int &score : out)
            if (std::count(before.begin(), before.end(), score) > 1) score += *rules.tie_penalty;
    }
    return out;
}

// What a bot writes: one of `legal`, for the decision view.decision.
using Choose = std::function<std::string(const View &view, const std::vector<std::string> &legal)>;

// Play one match: read golfref's messages from `in` (stdin), answer on `out` (stdout) until
// goodbye or the end of input. Returns the exit status for main: 0, or 1 after writing on
// stderr why the bot stops (choose threw, or a line from golfref could not be read).
[[nodiscard]] inline int play(const std::string &name, const std::string &version, const Choose &choose,
                              std::istream &in = std::cin, std::ostream &out = std::cout) {
    auto send = [&out](const json::Value &message) {
        out << message.dump() << '\n';
        out.flush();  // a pipe, not a terminal: unflushed, the line would wait in the buffer
    };
    std::optional<Rules> rules;
    Time time;
    std::string line;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::optional<View> view;
        std::vector<std::string> legal;
        try {
            const json::Value message = json::parse(line);
            const json::Value &type = message["type"];
            const std::string kind = type.is_string() ? type.as_string() : "";
            if (kind == "hello") {
                rules = Rules::from_json(message["rules"]);
                time = Time::from_json(message["time"]);
                send(json::Object{{"type", "ready"}, {"name", name}, {"version", version}});
            } else if (kind == "request" && rules) {
                view = View::from_request(message, *rules, time);
                legal = detail::list(message["legal"], [](const json::Value &a) { return a.as_string(); });
            } else if (kind == "goodbye") {
                break;
            }
            // Notices (hole_end, match_end) and unknown types need no answer.
        } catch (const json::Error &e) {
            std::cerr << "golfbot: cannot read this line from golfref: " << e.what() << '\n' << line << '\n';
            return 1;
        }
        if (!view) continue;
        std::string action;
        try {
            action = choose(*view, legal);
        } catch (const std::exception &e) {
            std::cerr << "golfbot: choose threw for request " << view->request_id << " (decision " << view->decision
                      << "): " << e.what() << '\n';
            return 1;
        } catch (...) {
            std::cerr << "golfbot: choose threw something that is not a std::exception for request " << view->request_id
                      << " (decision " << view->decision << ")\n";
            return 1;
        }
        // Sent as it is: an action not in `legal` is the referee's illegal_action fault.
        send(json::Object{{"type", "answer"}, {"id", view->request_id}, {"action", action}});
    }
    return 0;
}

}  // namespace golfbot

#endif
