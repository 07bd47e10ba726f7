// A bot on the C++ kit that answers every request with what the kit read (tests/test_kit_rules.py):
// hello.rules as golfbot::Rules holds it, golfbot::points of every card in the view, and each
// grid's and every seat's hole score. The test writes it as the kit's bot.cpp.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "golfbot.hpp"

namespace {

constexpr int UNSEEN = 1000;  // no card is worth this: the test tells an unseen card by it

json::Value number_or_null(const std::optional<int> &value) { return value ? json::Value(*value) : json::Value(); }

json::Value rules_json(const golfbot::Rules &r) {
    json::Object card_values, suit_values;
    for (const auto &[rank, points] : r.card_values) card_values.emplace_back(std::string(1, rank), points);
    for (const auto &[card, points] : r.suit_values) suit_values.emplace_back(card, points);
    json::Value exact = r.exact_score ? json::Value(json::Array{r.exact_score->first, r.exact_score->second}) : json::Value();
    return json::Object{
        {"preset", r.preset},
        {"players", r.players},
        {"rows", r.rows},
        {"cols", r.cols},
        {"decks", r.decks},
        {"jokers", number_or_null(r.jokers)},
        {"twos", r.twos},
        {"court_values", r.court_values},
        {"reveal_count", r.reveal_count},
        {"reveal", r.reveal},
        {"reveal_choice", r.reveal_choice},
        {"flip_after_throw", r.flip_after_throw},
        {"swap_face", r.swap_face},
        {"knocking", r.knocking},
        {"knock_penalty", number_or_null(r.knock_penalty)},
        {"knock_double", r.knock_double},
        {"lines", r.lines},
        {"cancel", r.cancel},
        {"pair_scope", r.pair_scope},
        {"block_bonus", number_or_null(r.block_bonus)},
        {"card_powers", r.card_powers},
        {"holes", r.holes},
        {"turn_limit", r.turn_limit},
        {"card_values", card_values},
        {"suit_values", suit_values},
        {"joker_count", number_or_null(r.joker_count)},
        {"joker_pair", number_or_null(r.joker_pair)},
        {"negative_pairs", r.negative_pairs},
        {"two_column_bonus", number_or_null(r.two_column_bonus)},
        {"jack_columns_bonus", number_or_null(r.jack_columns_bonus)},
        {"exact_score", exact},
        {"closer_penalty", number_or_null(r.closer_penalty)},
        {"closer_bonus", number_or_null(r.closer_bonus)},
        {"low_score_bonus", number_or_null(r.low_score_bonus)},
        {"tie_penalty", number_or_null(r.tie_penalty)},
        {"flip_instead_of_draw", r.flip_instead_of_draw},
        {"flip_out", number_or_null(r.flip_out)},
    };
}

std::string echo(const golfbot::View &view, const std::vector<std::string> &) {
    const golfbot::Rules &r = view.rules;
    auto points = [&r](const std::optional<golfbot::Card> &card) { return json::Value(golfbot::points(r, card, UNSEEN)); };
    json::Array grids, discard, grid_scores, hole_scores;
    for (const golfbot::Grid &grid : view.grids) {
        json::Array cards;
        for (const auto &card : grid) cards.push_back(points(card));
        grids.emplace_back(std::move(cards));
        grid_scores.emplace_back(golfbot::grid_score(r, grid, UNSEEN));
    }
    for (const golfbot::Card &card : view.discard) discard.push_back(points(card));
    for (int score : golfbot::hole_scores(r, view.grids, view.closer, view.knocker, UNSEEN)) hole_scores.emplace_back(score);
    return json::Value(json::Object{
                           {"rules", rules_json(r)},
                           {"grids", grids},
                           {"discard", discard},
                           {"drawn", points(view.drawn)},
                           {"grid_scores", grid_scores},
                           {"hole_scores", hole_scores},
                       })
        .dump();
}

}  // namespace

int main() { return golfbot::play("cpp-echo", "1", echo); }
