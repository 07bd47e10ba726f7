/* golfbot.c: the protocol loop of golfbot.h. */
#define _POSIX_C_SOURCE 200809L
#include "golfbot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy(char *out, size_t size, const json *value) {
    const char *s = json_str(value);
    snprintf(out, size, "%s", s ? s : "");
}

static int off_or(const json *value, int *number) {
    if (!value || value->type != JSON_NUMBER) return 0;
    *number = (int)value->number;
    return 1;
}

static void read_rules(const json *r, golf_rules *rules) {
    memset(rules, 0, sizeof *rules);
    copy(rules->preset, sizeof rules->preset, json_get(r, "preset"));
    rules->players = (int)json_int(json_get(r, "players"), 2);
    const char *layout = json_str(json_get(r, "layout"));
    if (!layout || sscanf(layout, "%dx%d", &rules->rows, &rules->cols) != 2) rules->rows = rules->cols = 0;
    rules->decks = (int)json_int(json_get(r, "decks"), 1);
    rules->jokers_on = off_or(json_get(r, "jokers"), &rules->jokers);
    rules->twos = (int)json_int(json_get(r, "twos"), -2);
    copy(rules->court_values, sizeof rules->court_values, json_get(r, "court_values"));
    rules->reveal_count = (int)json_int(json_get(r, "reveal_count"), 0);
    copy(rules->reveal, sizeof rules->reveal, json_get(r, "reveal"));
    copy(rules->reveal_choice, sizeof rules->reveal_choice, json_get(r, "reveal_choice"));
    copy(rules->flip_after_throw, sizeof rules->flip_after_throw, json_get(r, "flip_after_throw"));
    copy(rules->swap_face, sizeof rules->swap_face, json_get(r, "swap_face"));
    const json *knocking = json_get(r, "knocking");
    rules->knocking = knocking && knocking->type == JSON_BOOL && knocking->boolean;
    rules->knock_penalty_on = off_or(json_get(r, "knock_penalty"), &rules->knock_penalty);
    const json *dbl = json_get(r, "knock_double");
    rules->knock_double = dbl && dbl->type == JSON_BOOL && dbl->boolean;
    copy(rules->lines, sizeof rules->lines, json_get(r, "lines"));
    copy(rules->cancel, sizeof rules->cancel, json_get(r, "cancel"));
    copy(rules->pair_scope, sizeof rules->pair_scope, json_get(r, "pair_scope"));
    rules->block_bonus_on = off_or(json_get(r, "block_bonus"), &rules->block_bonus);
    const json *powers = json_get(r, "card_powers");
    rules->card_powers = powers && powers->type == JSON_BOOL && powers->boolean;
    rules->holes = (int)json_int(json_get(r, "holes"), 1);
    rules->turn_limit = (int)json_int(json_get(r, "turn_limit"), 1);
    const json *table = json_get(r, "card_values");
    for (int i = 0; table && i < 14; i++) {
        char key[2] = {GOLF_RANKS[i], 0};
        const json *v = json_get(table, key);
        if (v && v->type == JSON_NUMBER) {
            rules->rank_points[i] = (int)json_int(v, 0);
            rules->rank_points_on = 1;
        }
    }
    const json *by_suit = json_get(r, "suit_values");
    for (const char *rank = "A23456789TJQK"; by_suit && *rank; rank++) {
        for (const char *suit = "SHDC"; *suit; suit++) {
            char key[3] = {*rank, *suit, 0};
            const json *v = json_get(by_suit, key);
            if (v && v->type == JSON_NUMBER && rules->suit_points_count < 52) {
                memcpy(rules->suit_cards[rules->suit_points_count], key, 3);
                rules->suit_points[rules->suit_points_count++] = (int)json_int(v, 0);
            }
        }
    }
    rules->joker_count_on = off_or(json_get(r, "joker_count"), &rules->joker_count);
    rules->joker_pair_on = off_or(json_get(r, "joker_pair"), &rules->joker_pair);
    copy(rules->negative_pairs, sizeof rules->negative_pairs, json_get(r, "negative_pairs"));
    if (!rules->negative_pairs[0]) strcpy(rules->negative_pairs, "cancel"); /* a protocol-2 hello */
    rules->two_column_bonus_on = off_or(json_get(r, "two_column_bonus"), &rules->two_column_bonus);
    rules->jack_columns_bonus_on = off_or(json_get(r, "jack_columns_bonus"), &rules->jack_columns_bonus);
    const json *exact = json_get(r, "exact_score");
    rules->exact_score_on = off_or(json_at(exact, 0), &rules->exact_score_from)
                            && off_or(json_at(exact, 1), &rules->exact_score_to);
    rules->closer_penalty_on = off_or(json_get(r, "closer_penalty"), &rules->closer_penalty);
    rules->closer_bonus_on = off_or(json_get(r, "closer_bonus"), &rules->closer_bonus);
    rules->low_score_bonus_on = off_or(json_get(r, "low_score_bonus"), &rules->low_score_bonus);
    rules->tie_penalty_on = off_or(json_get(r, "tie_penalty"), &rules->tie_penalty);
    const json *flip = json_get(r, "flip_instead_of_draw");
    rules->flip_instead_of_draw = flip && flip->type == JSON_BOOL && flip->boolean;
    rules->flip_out_on = off_or(json_get(r, "flip_out"), &rules->flip_out);
}

static void read_time(const json *t, golf_time *time) {
    time->startup_ms = json_int(json_get(t, "startup_ms"), 0);
    time->move_ms = json_int(json_get(t, "move_ms"), 0);
    time->bank_ms = json_int(json_get(t, "bank_ms"), 0);
    time->increment_ms = json_int(json_get(t, "increment_ms"), 0);
    time->grace_ms = json_int(json_get(t, "grace_ms"), 0);
    time->match_ms = json_int(json_get(t, "match_ms"), 0);
}

static void read_view(const json *request, golf_view *v) {
    const json *view = json_get(request, "view");
    v->request = request;
    v->request_id = json_int(json_get(request, "id"), 0);
    v->time_ms = json_int(json_get(request, "time_ms"), 0);
    v->events = json_get(request, "events");
    v->seat = (int)json_int(json_get(view, "seat"), 0);
    v->hole = (int)json_int(json_get(view, "hole"), 0);
    v->starter = (int)json_int(json_get(view, "starter"), 0);
    v->to_move = (int)json_int(json_get(view, "to_move"), 0);
    v->decision = json_str(json_get(view, "decision"));
    const json *grids = json_get(view, "grids"), *face_up = json_get(view, "face_up");
    v->players = grids && grids->count <= GOLF_MAX_SEATS ? (int)grids->count : 0;
    v->slots = 0;
    for (int s = 0; s < v->players; s++) {
        const json *grid = json_at(grids, (size_t)s), *up = json_at(face_up, (size_t)s);
        v->slots = grid && grid->count <= GOLF_MAX_SLOTS ? (int)grid->count : 0;
        for (int i = 0; i < v->slots; i++) {
            v->grids[s][i] = json_str(json_at(grid, (size_t)i));
            const json *u = json_at(up, (size_t)i);
            v->face_up[s][i] = u && u->type == JSON_BOOL && u->boolean;
        }
        v->turns[s] = (int)json_int(json_at(json_get(view, "turns"), (size_t)s), 0);
        v->totals[s] = (int)json_int(json_at(json_get(view, "totals"), (size_t)s), 0);
    }
    const json *discard = json_get(view, "discard");
    v->n_discard = discard && discard->count <= GOLF_MAX_CARDS ? (int)discard->count : 0;
    for (int i = 0; i < v->n_discard; i++) v->discard[i] = json_str(json_at(discard, (size_t)i));
    v->stock_size = (int)json_int(json_get(view, "stock_size"), 0);
    v->drawn = json_str(json_get(view, "drawn"));
    v->drawn_from = json_str(json_get(view, "drawn_from"));
    v->power = json_str(json_get(view, "power"));
    const json *first = json_get(view, "first_target");
    v->first_target[0] = (int)json_int(json_at(first, 0), -1);
    v->first_target[1] = (int)json_int(json_at(first, 1), -1);
    v->closer = (int)json_int(json_get(view, "closer"), -1);
    v->knocker = (int)json_int(json_get(view, "knocker"), -1);
}

/* `text` as a JSON string. */
static void put_string(const char *text) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

int golf_points(const golf_rules *rules, const char *card, int unseen) {
    if (!card) return unseen;
    for (int i = 0; i < rules->suit_points_count; i++)
        if (card[0] == rules->suit_cards[i][0] && card[1] == rules->suit_cards[i][1]) return rules->suit_points[i];
    const char *at = strchr(GOLF_RANKS, card[0]);
    if (rules->rank_points_on && at && *at) return rules->rank_points[at - GOLF_RANKS];
    int court = strcmp(rules->court_values, "11/12") == 0;
    switch (card[0]) {
        case 'A': return 1;
        case '2': return rules->twos;
        case 'T': return 10;
        case 'J': return court ? 11 : 10;
        case 'Q': return court ? 12 : 10;
        case 'K': return 0;
        case 'X': return rules->jokers;
        default: return card[0] - '0';
    }
}

/* Python's divmod: `total` split over `n` cards as golfref splits a block's or a joker pair's total. */
static void share_out(int total, int n, int *out) {
    int share = total / n;
    if (total % n != 0 && total < 0) share--;
    int rest = total - share * n;
    for (int i = 0; i < n; i++) out[i] = share + (i < rest ? 1 : 0);
}

enum { LINE_COLUMN, LINE_OTHER };

typedef struct {
    int kind, count;
    int slots[GOLF_MAX_SLOTS];
} golf_line;

/* The lines that cancel (cancel: line) or the pair groups (cancel: pairs), in golfref's scan order. */
static int line_groups(const golf_rules *r, golf_line *out) {
    int rows = r->rows, cols = r->cols, n = 0;
    if (strcmp(r->cancel, "pairs") == 0 && strcmp(r->pair_scope, "grid") == 0) {
        out[0].kind = LINE_OTHER;
        out[0].count = rows * cols;
        for (int s = 0; s < rows * cols; s++) out[0].slots[s] = s;
        return rows * cols >= 2;
    }
    int line = strcmp(r->cancel, "line") == 0;
    int with_rows = line ? strcmp(r->lines, "columns") != 0 : strcmp(r->pair_scope, "columns+rows") == 0;
    if (rows >= 2)
        for (int c = 0; c < cols; c++, n++) {
            out[n].kind = LINE_COLUMN;
            out[n].count = rows;
            for (int i = 0; i < rows; i++) out[n].slots[i] = i * cols + c;
        }
    if (with_rows && cols >= 2)
        for (int i = 0; i < rows; i++, n++) {
            out[n].kind = LINE_OTHER;
            out[n].count = cols;
            for (int c = 0; c < cols; c++) out[n].slots[c] = i * cols + c;
        }
    if (line && strcmp(r->lines, "columns+rows+diagonals") == 0 && rows == cols && rows >= 2)
        for (int d = 0; d < 2; d++, n++) {
            out[n].kind = LINE_OTHER;
            out[n].count = rows;
            for (int i = 0; i < rows; i++) out[n].slots[i] = i * cols + (d ? cols - 1 - i : i);
        }
    return n;
}

int golf_grid_score(const golf_rules *r, const char *const *grid, int unseen) {
    int rows = r->rows, cols = r->cols, n = rows * cols;
    char ranks[GOLF_MAX_SLOTS];
    int points[GOLF_MAX_SLOTS], own[GOLF_MAX_SLOTS], done[GOLF_MAX_SLOTS] = {0}, shares[GOLF_MAX_SLOTS];
    for (int s = 0; s < n; s++) {
        ranks[s] = grid[s] ? grid[s][0] : 0;
        /* own: a card is negative by its own points, not by a block's share */
        own[s] = points[s] = golf_points(r, grid[s], unseen);
    }
    if (r->block_bonus_on && rows >= 2 && cols >= 2)
        for (int i = 0; i + 1 < rows; i++)
            for (int c = 0; c + 1 < cols; c++) {
                int square[4] = {i * cols + c, i * cols + c + 1, (i + 1) * cols + c, (i + 1) * cols + c + 1}, same = 1;
                for (int k = 0; k < 4; k++) same = same && !done[square[k]] && ranks[square[k]] == ranks[square[0]];
                if (!same || !ranks[square[0]]) continue;
                share_out(r->block_bonus, 4, shares);
                for (int k = 0; k < 4; k++) {
                    done[square[k]] = 1; /* a block card keeps its share, whatever line runs through it */
                    points[square[k]] = shares[k];
                }
            }
    golf_line groups[2 * 4 + 2], cancelled[2 * 4 + 2];
    int n_groups = line_groups(r, groups), n_cancelled = 0;
    int line_mode = strcmp(r->cancel, "line") == 0;
    for (int g = 0; g < n_groups; g++) {
        golf_line *hit = &cancelled[n_cancelled];
        hit->kind = groups[g].kind;
        hit->count = 0;
        for (int i = 0; i < groups[g].count; i++) {
            int s = groups[g].slots[i], same = 0;
            /* A line: every card of the first card's rank. Pairs: every card whose rank is there twice. */
            if (line_mode) same = ranks[s] == ranks[groups[g].slots[0]] ? 2 : 0;
            else
                for (int j = 0; j < groups[g].count; j++) same += ranks[groups[g].slots[j]] == ranks[s];
            if (ranks[s] && same >= 2) hit->slots[hit->count++] = s;
        }
        if (line_mode ? hit->count == groups[g].count : hit->count > 0) n_cancelled++;
    }
    int columns[14] = {0};
    int keep = strcmp(r->negative_pairs, "keep") == 0;
    for (int l = 0; l < n_cancelled; l++) {
        const golf_line *group = &cancelled[l];
        for (int i = 0; i < group->count; i++) {
            /* Under cancel: pairs each rank's cards are a line of their own, gathered at its first card. */
            char rank = ranks[group->slots[i]];
            int first = 1, line[GOLF_MAX_SLOTS], count = 0, negative = 0;
            for (int j = 0; j < i; j++) first = first && ranks[group->slots[j]] != rank;
            if (!first) continue;
            for (int j = i; j < group->count; j++)
                if (ranks[group->slots[j]] == rank) {
                    line[count++] = group->slots[j];
                    negative = negative || own[group->slots[j]] < 0;
                }
            const char *at = strchr(GOLF_RANKS, rank);
            if (group->kind == LINE_COLUMN && at) columns[at - GOLF_RANKS]++;
            /* A card a block or an earlier line decided keeps what it got there. */
            if (r->joker_pair_on && rank == 'X') {
                share_out(r->joker_pair, count, shares);
                for (int k = 0; k < count; k++)
                    if (!done[line[k]]) points[line[k]] = shares[k];
            } else if (!(keep && negative)) {
                for (int k = 0; k < count; k++)
                    if (!done[line[k]]) points[line[k]] = 0;
            }
            for (int k = 0; k < count; k++) done[line[k]] = 1;
        }
    }
    int total = 0;
    for (int s = 0; s < n; s++) total += points[s];
    for (int k = 0; k < 14 && r->two_column_bonus_on; k++)
        if (columns[k] >= 2) total += r->two_column_bonus;
    if (r->jack_columns_bonus_on && columns[strchr(GOLF_RANKS, 'J') - GOLF_RANKS] >= 2) total += r->jack_columns_bonus;
    if (r->exact_score_on && total == r->exact_score_from) total = r->exact_score_to;
    return total;
}

void golf_hole_scores(const golf_rules *r, const char *const grids[][GOLF_MAX_SLOTS], int players, int closer,
                      int knocker, int unseen, int *out) {
    int raw[GOLF_MAX_SEATS];
    for (int s = 0; s < players; s++) out[s] = raw[s] = golf_grid_score(r, grids[s], unseen);
    int failed = 0;
    for (int s = 0; s < players && knocker >= 0; s++) failed = failed || (s != knocker && raw[s] <= raw[knocker]);
    if (failed) out[knocker] += r->knock_double ? (raw[knocker] > 0 ? raw[knocker] : 0) : r->knock_penalty;
    int first = closer >= 0 ? closer : knocker, low = out[0];
    for (int s = 1; s < players; s++) low = out[s] < low ? out[s] : low;
    if (first >= 0 && r->closer_penalty_on && out[first] > low) out[first] += r->closer_penalty;
    if (first >= 0 && r->closer_bonus_on) out[first] += r->closer_bonus;
    low = out[0];
    for (int s = 1; s < players; s++) low = out[s] < low ? out[s] : low;
    for (int s = 0; s < players && r->low_score_bonus_on; s++)
        if (out[s] == low) out[s] += r->low_score_bonus;
    int before[GOLF_MAX_SEATS];
    memcpy(before, out, sizeof(int) * (size_t)players);
    for (int s = 0; s < players && r->tie_penalty_on; s++)
        for (int t = 0; t < players; t++)
            if (t != s && before[t] == before[s]) {
                out[s] += r->tie_penalty;
                break;
            }
}

int golf_play(const char *name, const char *version) {
    static golf_rules rules;
    static golf_time time;
    static golf_view view;
    int greeted = 0;
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        json *message = json_parse(line);
        const char *type = json_str(json_get(message, "type"));
        if (type && strcmp(type, "hello") == 0) {
            read_rules(json_get(message, "rules"), &rules);
            read_time(json_get(message, "time"), &time);
            greeted = 1;
            printf("{\"type\": \"ready\", \"name\": ");
            put_string(name);
            printf(", \"version\": ");
            put_string(version);
            printf("}\n");
            fflush(stdout);
        } else if (type && strcmp(type, "request") == 0 && greeted) {
            const json *legal_json = json_get(message, "legal");
            size_t n = legal_json ? legal_json->count : 0;
            const char **legal = calloc(n ? n : 1, sizeof *legal);
            for (size_t i = 0; i < n; i++) legal[i] = json_str(json_at(legal_json, i));
            memset(&view, 0, sizeof view);
            view.rules = &rules;
            view.time = &time;
            read_view(message, &view);
            const char *action = golf_choose(&view, legal, n);
            if (!action) {
                /* C has no exception to end the bot with: a NULL answer is the bug, said and ended on. */
                fprintf(stderr, "golfbot: golf_choose returned NULL for request %lld (decision %s)\n",
                        view.request_id, view.decision ? view.decision : "?");
                exit(1);
            }
            /* Sent as it is: an action not in `legal` is the referee's illegal_action fault. */
            printf("{\"type\": \"answer\", \"id\": %lld, \"action\": ", view.request_id);
            put_string(action);
            printf("}\n");
            fflush(stdout);
            free(legal);
        } else if (type && strcmp(type, "goodbye") == 0) {
            json_free(message);
            break;
        }
        /* Notices (hole_end, match_end) and unknown types need no answer. */
        json_free(message);
    }
    free(line);
    return 0;
}
