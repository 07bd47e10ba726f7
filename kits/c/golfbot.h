/* golfbot.h: the golfref bot protocol (version 3) for C bots.
 *
 * Write golf_choose and call golf_play from main:
 *
 *     const char *golf_choose(const golf_view *view, const char *const *legal, size_t n_legal) {
 *         return legal[0];
 *     }
 *     int main(void) { return golf_play("my_bot", "1"); }
 *
 * golf_play reads golfref's messages on stdin, answers hello with ready, fills a golf_view
 * for every request, calls golf_choose and answers with what it returns, as it is (one of
 * `legal`, or the referee records an illegal_action fault naming the legal choices). A
 * NULL return ends the bot: an error on stderr and exit status 1, as an exception would end
 * a bot in another language. Unknown message types are ignored, as the protocol asks. The fields and their JSON types are those of
 * docs/PROTOCOL.md; a card is a string such as "TH" or "XR#2", NULL where unseen. Every
 * pointer in a view lives until golf_choose returns. golf_points, golf_grid_score and
 * golf_hole_scores score a card, a grid and a hole as golfref does. */
#ifndef GOLFBOT_H
#define GOLFBOT_H

#include <stddef.h>

#include "json.h"

#define GOLF_PROTOCOL 3
#define GOLF_MAX_SEATS 8
#define GOLF_MAX_SLOTS 16  /* a 4x4 grid */
#define GOLF_MAX_CARDS 216 /* four decks with jokers */

/* hello.rules. A field that can be off (JSON null) has an `_on` flag beside it. */
typedef struct {
    char preset[16];
    int players, rows, cols, decks;
    int jokers_on, jokers;
    int twos;
    char court_values[8];
    int reveal_count;
    char reveal[8], reveal_choice[8], flip_after_throw[8], swap_face[8];
    int knocking;
    int knock_penalty_on, knock_penalty, knock_double;
    char lines[32], cancel[8], pair_scope[16];
    int block_bonus_on, block_bonus;
    int card_powers, holes, turn_limit;
    /* The house options a kit's points need (protocol 3): the whole card table by rank,
       in the order of GOLF_RANKS (rank_points_on: hello had it), and the cards whose suit
       gives them other points ("JH"). */
    int rank_points_on, rank_points[14];
    int suit_points_count;
    char suit_cards[52][3];
    int suit_points[52];
    /* How a grid's cards add up beyond their points (docs/RULES.md#house-options): they
       need the whole grid, which golf_grid_score scores. */
    int joker_count_on, joker_count;         /* jokers in the whole shoe (off: two per deck) */
    int joker_pair_on, joker_pair;           /* what a cancelled line of jokers scores */
    char negative_pairs[8];                  /* "cancel" or "keep" */
    int two_column_bonus_on, two_column_bonus;
    int jack_columns_bonus_on, jack_columns_bonus;
    int exact_score_on, exact_score_from, exact_score_to; /* a grid score of exactly from becomes to */
    /* End-of-hole adjustments that compare the players' scores: golf_hole_scores applies them. */
    int closer_penalty_on, closer_penalty;
    int closer_bonus_on, closer_bonus;
    int low_score_bonus_on, low_score_bonus;
    int tie_penalty_on, tie_penalty;
    int flip_instead_of_draw;
    int flip_out_on, flip_out;
} golf_rules;

#define GOLF_RANKS "A23456789TJQKX"

/* hello.time, in milliseconds (match_ms 0: no limit). */
typedef struct {
    long long startup_ms, move_ms, bank_ms, increment_ms, grace_ms, match_ms;
} golf_time;

/* A request's view. Seats and slots count from 0; -1 stands for JSON null in seat fields. */
typedef struct {
    const golf_rules *rules;
    const golf_time *time;
    long long request_id, time_ms;
    int seat, hole, starter, to_move;
    const char *decision;                         /* reveal, draw, place, flip, target */
    int players, slots;                           /* grids are players x slots */
    const char *grids[GOLF_MAX_SEATS][GOLF_MAX_SLOTS]; /* NULL: not seen by this seat */
    int face_up[GOLF_MAX_SEATS][GOLF_MAX_SLOTS];
    const char *discard[GOLF_MAX_CARDS];          /* bottom first; the last is the top */
    int n_discard;
    int stock_size;
    const char *drawn, *drawn_from, *power;       /* NULL when none */
    int first_target[2];                          /* seat and slot; -1 -1 when none */
    int closer, knocker;                          /* -1 when none */
    int turns[GOLF_MAX_SEATS], totals[GOLF_MAX_SEATS];
    const json *events;                           /* the request's events, as JSON */
    const json *request;                          /* the whole request, for anything else */
} golf_view;

/* Written by the bot: one of legal[0 .. n_legal-1] (NULL ends the bot with an error). */
const char *golf_choose(const golf_view *view, const char *const *legal, size_t n_legal);

/* Play one match on stdin/stdout; returns the exit status for main. */
int golf_play(const char *name, const char *version);

/* Points of a card under `rules` (unseen, NULL, counts `unseen`): its suit's own value
 * (suit_values) where it has one, else its rank's in the card table (card_values). */
int golf_points(const golf_rules *rules, const char *card, int unseen);

/* A grid's score (rules->rows * rules->cols cards, row-major) as golfref scores it
 * (docs/RULES.md, "Card values and scoring"), exact_score applied: blocks, cancelled lines or
 * pairs, joker_pair, negative_pairs and the column bonuses all count. An unseen card (NULL)
 * counts `unseen` and cancels with nothing: the score of a grid with one is an estimate. The
 * adjustments between players need every grid: golf_hole_scores. */
int golf_grid_score(const golf_rules *rules, const char *const *grid, int unseen);

/* Every seat's hole score into out[0 .. players-1], as golfref scores it: golf_grid_score, a
 * failed knock's penalty (a tie for lowest fails), then in order closer_penalty (unless the one
 * who ended the hole first is lowest), closer_bonus, low_score_bonus and last tie_penalty.
 * `closer` and `knocker` are the view's (-1: none): golf_hole_scores(view->rules, view->grids,
 * view->players, view->closer, view->knocker, 5, out). */
void golf_hole_scores(const golf_rules *rules, const char *const grids[][GOLF_MAX_SLOTS], int players, int closer,
                      int knocker, int unseen, int *out);

#endif
