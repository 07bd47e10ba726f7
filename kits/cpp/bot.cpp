// The C++ starter bot: keeps low cards, swaps out its worst one. Edit choose.
// Build: g++ -std=c++17 -O2 -o bot bot.cpp   Run: ./bot
#include <algorithm>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "golfbot.hpp"

namespace {

constexpr int UNSEEN = 5;  // points a card this seat has not seen is guessed at

bool has(const std::vector<std::string> &legal, const std::string &action) {
    return std::find(legal.begin(), legal.end(), action) != legal.end();
}

// The numbers of an action: {3} for "flip:3", {1, 4} for "target:1:4".
std::vector<std::size_t> numbers(const std::string &action) {
    std::vector<std::size_t> out;
    std::istringstream parts(action);
    std::string part;
    std::getline(parts, part, ':');  // the action's name
    while (std::getline(parts, part, ':')) out.push_back(std::stoul(part));
    return out;
}

std::string choose(const golfbot::View &view, const std::vector<std::string> &legal) {
    auto points = [&view](const std::optional<golfbot::Card> &card) { return golfbot::points(view.rules, card, UNSEEN); };
    const golfbot::Grid &grid = view.grid();
    std::size_t worst = 0;
    for (std::size_t slot = 1; slot < grid.size(); ++slot)
        if (points(grid[slot]) > points(grid[worst])) worst = slot;
    const std::string swap = "swap:" + std::to_string(worst);
    if (view.decision == "draw") {
        if (has(legal, "discard") && points(view.discard.back()) < points(grid[worst]) - 2) return "discard";
        return "stock";
    }
    if (view.decision == "place") {
        if (points(view.drawn) < points(grid[worst])) return swap;
        if (has(legal, "power")) return "power";  // a J, Q or K with card powers on: thrown away for its power
        return has(legal, "throw") ? "throw" : swap;
    }
    if (view.decision == "flip") {
        // Turn up a card we have not seen: the flip then tells us something.
        for (const std::string &action : legal)
            if (action.rfind("flip:", 0) == 0 && !grid[numbers(action)[0]]) return action;
    }
    if (view.decision == "target") {
        // A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
        for (const std::string &action : legal) {
            const std::vector<std::size_t> at = numbers(action);
            if (!view.grids[at[0]][at[1]]) return action;
        }
    }
    return legal.front();  // reveal: the first legal choice
}

}  // namespace

int main() { return golfbot::play("cpp-starter", "1", choose); }
