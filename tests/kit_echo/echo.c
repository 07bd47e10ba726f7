/* A bot on the C kit that answers every request with what the kit read (tests/test_kit_rules.py):
 * a JSON text of hello.rules as golf_rules holds it and golf_points of every card in the view. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "golfbot.h"

#define UNSEEN 1000 /* no card is worth this: the test tells an unseen card by it */

static char out[1 << 16];
static size_t used;

static void put(const char *format, ...) {
    va_list args;
    va_start(args, format);
    used += (size_t)vsnprintf(out + used, sizeof out - used, format, args);
    va_end(args);
}

static void number_or_null(const char *key, int on, int value) {
    if (on) put("\"%s\": %d, ", key, value);
    else put("\"%s\": null, ", key);
}

static void boolean(const char *key, int value) { put("\"%s\": %s, ", key, value ? "true" : "false"); }

static void text(const char *key, const char *value) { put("\"%s\": \"%s\", ", key, value); }

static void points(const golf_rules *r, const char *card) { put("%d", golf_points(r, card, UNSEEN)); }

const char *golf_choose(const golf_view *view, const char *const *legal, size_t n_legal) {
    (void)legal;
    (void)n_legal;
    const golf_rules *r = view->rules;
    used = 0;
    put("{\"rules\": {");
    text("preset", r->preset);
    put("\"players\": %d, \"rows\": %d, \"cols\": %d, \"decks\": %d, ", r->players, r->rows, r->cols, r->decks);
    number_or_null("jokers", r->jokers_on, r->jokers);
    put("\"twos\": %d, ", r->twos);
    text("court_values", r->court_values);
    put("\"reveal_count\": %d, ", r->reveal_count);
    text("reveal", r->reveal);
    text("reveal_choice", r->reveal_choice);
    text("flip_after_throw", r->flip_after_throw);
    text("swap_face", r->swap_face);
    boolean("knocking", r->knocking);
    number_or_null("knock_penalty", r->knock_penalty_on, r->knock_penalty);
    boolean("knock_double", r->knock_double);
    text("lines", r->lines);
    text("cancel", r->cancel);
    text("pair_scope", r->pair_scope);
    number_or_null("block_bonus", r->block_bonus_on, r->block_bonus);
    boolean("card_powers", r->card_powers);
    put("\"holes\": %d, \"turn_limit\": %d, ", r->holes, r->turn_limit);
    put("\"card_values\": {");
    for (int i = 0; i < 14 && r->rank_points_on; i++) {
        if (GOLF_RANKS[i] == 'X' && !r->jokers_on) break;
        put("%s\"%c\": %d", i ? ", " : "", GOLF_RANKS[i], r->rank_points[i]);
    }
    put("}, \"suit_values\": {");
    for (int i = 0; i < r->suit_points_count; i++) put("%s\"%s\": %d", i ? ", " : "", r->suit_cards[i], r->suit_points[i]);
    put("}, ");
    number_or_null("joker_count", r->joker_count_on, r->joker_count);
    number_or_null("joker_pair", r->joker_pair_on, r->joker_pair);
    text("negative_pairs", r->negative_pairs);
    number_or_null("two_column_bonus", r->two_column_bonus_on, r->two_column_bonus);
    number_or_null("jack_columns_bonus", r->jack_columns_bonus_on, r->jack_columns_bonus);
    if (r->exact_score_on) put("\"exact_score\": [%d, %d], ", r->exact_score_from, r->exact_score_to);
    else put("\"exact_score\": null, ");
    number_or_null("closer_penalty", r->closer_penalty_on, r->closer_penalty);
    number_or_null("closer_bonus", r->closer_bonus_on, r->closer_bonus);
    number_or_null("low_score_bonus", r->low_score_bonus_on, r->low_score_bonus);
    number_or_null("tie_penalty", r->tie_penalty_on, r->tie_penalty);
    boolean("flip_instead_of_draw", r->flip_instead_of_draw);
    if (r->flip_out_on) put("\"flip_out\": %d", r->flip_out);
    else put("\"flip_out\": null");
    put("}, \"grids\": [");
    for (int s = 0; s < view->players; s++) {
        put(s ? ", [" : "[");
        for (int i = 0; i < view->slots; i++) {
            if (i) put(", ");
            points(r, view->grids[s][i]);
        }
        put("]");
    }
    put("], \"discard\": [");
    for (int i = 0; i < view->n_discard; i++) {
        if (i) put(", ");
        points(r, view->discard[i]);
    }
    put("], \"drawn\": ");
    points(r, view->drawn);
    put(", \"grid_scores\": [");
    for (int s = 0; s < view->players; s++) put("%s%d", s ? ", " : "", golf_grid_score(r, view->grids[s], UNSEEN));
    int scores[GOLF_MAX_SEATS];
    golf_hole_scores(r, view->grids, view->players, view->closer, view->knocker, UNSEEN, scores);
    put("], \"hole_scores\": [");
    for (int s = 0; s < view->players; s++) put("%s%d", s ? ", " : "", scores[s]);
    put("]}");
    return out;
}

int main(void) { return golf_play("c-echo", "1"); }
