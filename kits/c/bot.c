/* The C starter bot: keeps low cards, swaps out its worst one. Edit golf_choose.
 * Build: cc -std=c11 -O2 -o bot bot.c golfbot.c json.c   Run: ./bot */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golfbot.h"

#define UNSEEN 5 /* points a card this seat has not seen is guessed at */

static int has(const char *const *legal, size_t n, const char *action) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(legal[i], action) == 0) return 1;
    return 0;
}

const char *golf_choose(const golf_view *view, const char *const *legal, size_t n_legal) {
    static char answer[32];
    const char *const *grid = view->grids[view->seat];
    int worst = 0;
    for (int slot = 1; slot < view->slots; slot++)
        if (golf_points(view->rules, grid[slot], UNSEEN) > golf_points(view->rules, grid[worst], UNSEEN)) worst = slot;
    int worst_points = golf_points(view->rules, grid[worst], UNSEEN);
    snprintf(answer, sizeof answer, "swap:%d", worst);
    if (strcmp(view->decision, "draw") == 0) {
        const char *top = view->discard[view->n_discard - 1];
        if (has(legal, n_legal, "discard") && golf_points(view->rules, top, UNSEEN) < worst_points - 2) return "discard";
        return "stock";
    }
    if (strcmp(view->decision, "place") == 0) {
        if (golf_points(view->rules, view->drawn, UNSEEN) < worst_points) return answer;
        if (has(legal, n_legal, "power")) return "power"; /* a J, Q or K with card powers on */
        return has(legal, n_legal, "throw") ? "throw" : answer;
    }
    if (strcmp(view->decision, "flip") == 0) {
        /* Turn up a card we have not seen: the flip then tells us something. */
        for (size_t i = 0; i < n_legal; i++)
            if (strncmp(legal[i], "flip:", 5) == 0 && grid[atoi(legal[i] + 5)] == NULL) return legal[i];
    }
    if (strcmp(view->decision, "target") == 0) {
        /* A power's target ("target:SEAT:SLOT"): a card we have not seen, if any. */
        for (size_t i = 0; i < n_legal; i++) {
            int seat, slot;
            if (sscanf(legal[i], "target:%d:%d", &seat, &slot) == 2 && view->grids[seat][slot] == NULL) return legal[i];
        }
    }
    return legal[0]; /* reveal: the first legal choice */
}

int main(void) { return golf_play("c-starter", "1"); }
