/*
 * A bot on the Java kit that answers every request with what the kit read (tests/test_kit_rules.py):
 * hello.rules as GolfBot.Rules holds it, Rules.points of every card of the view, each grid's
 * gridScore and every seat's holeScores. The test writes it as the kit's Bot.java.
 */

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Bot {
    static final int UNSEEN = 1000; // no card is worth this: the test tells an unseen card by it

    static String echo(GolfBot.View view) {
        GolfBot.Rules r = view.rules;
        Map<String, Object> rules = new LinkedHashMap<>();
        rules.put("preset", r.preset);
        rules.put("players", r.players);
        rules.put("rows", r.rows);
        rules.put("cols", r.cols);
        rules.put("decks", r.decks);
        rules.put("jokers", r.jokers);
        rules.put("twos", r.twos);
        rules.put("court_values", r.courtValues);
        rules.put("reveal_count", r.revealCount);
        rules.put("reveal", r.reveal);
        rules.put("reveal_choice", r.revealChoice);
        rules.put("flip_after_throw", r.flipAfterThrow);
        rules.put("swap_face", r.swapFace);
        rules.put("knocking", r.knocking);
        rules.put("knock_penalty", r.knockPenalty);
        rules.put("knock_double", r.knockDouble);
        rules.put("lines", r.lines);
        rules.put("cancel", r.cancel);
        rules.put("pair_scope", r.pairScope);
        rules.put("block_bonus", r.blockBonus);
        rules.put("card_powers", r.cardPowers);
        rules.put("holes", r.holes);
        rules.put("turn_limit", r.turnLimit);
        rules.put("card_values", r.cardValues);
        rules.put("suit_values", r.suitValues);
        rules.put("joker_count", r.jokerCount);
        rules.put("joker_pair", r.jokerPair);
        rules.put("negative_pairs", r.negativePairs);
        rules.put("two_column_bonus", r.twoColumnBonus);
        rules.put("jack_columns_bonus", r.jackColumnsBonus);
        rules.put("exact_score", r.exactScore);
        rules.put("closer_penalty", r.closerPenalty);
        rules.put("closer_bonus", r.closerBonus);
        rules.put("low_score_bonus", r.lowScoreBonus);
        rules.put("tie_penalty", r.tiePenalty);
        rules.put("flip_instead_of_draw", r.flipInsteadOfDraw);
        rules.put("flip_out", r.flipOut);

        List<int[]> grids = new ArrayList<>();
        List<Integer> gridScores = new ArrayList<>();
        for (String[] grid : view.grids) {
            grids.add(points(r, grid));
            gridScores.add(r.gridScore(grid, UNSEEN));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rules", rules);
        out.put("grids", grids);
        out.put("discard", points(r, view.discard));
        out.put("drawn", r.points(view.drawn, UNSEEN));
        out.put("grid_scores", gridScores);
        out.put("hole_scores", r.holeScores(view.grids, view.closer, view.knocker, UNSEEN));
        return Json.write(out);
    }

    static int[] points(GolfBot.Rules rules, String[] cards) {
        int[] out = new int[cards.length];
        for (int i = 0; i < cards.length; i++) {
            out[i] = rules.points(cards[i], UNSEEN);
        }
        return out;
    }

    public static void main(String[] args) {
        GolfBot.play("java-echo", "1", (view, legal) -> echo(view));
    }
}
