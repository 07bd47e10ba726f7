/*
 * GolfBot.java: the golfref bot protocol (version 3) for Java bots, standard library only.
 *
 * Write a choose(View, List<String>) that returns one of the legal choices, and hand it to play:
 *
 *     public final class Bot {
 *         static String choose(GolfBot.View view, List<String> legal) {
 *             return legal.get(0);
 *         }
 *
 *         public static void main(String[] args) {
 *             GolfBot.play("my_bot", "1", Bot::choose);
 *         }
 *     }
 *
 * play reads golfref's messages on stdin, answers hello with ready, builds a View for every
 * request and answers with what choose returns, as it is: a value not in `legal` is the
 * referee's illegal_action fault, which names the legal choices. An exception thrown by choose
 * is not caught: it ends the bot with its stack trace on stderr and exit status 1, so that a bug
 * shows (in the log, and in golfref check-bot) instead of hiding behind a move the bot did not
 * choose. Notices (hole_end, match_end) and unknown message types are ignored, as the protocol
 * asks. Print nothing but protocol lines on System.out: debugging goes to System.err.
 *
 * The fields are those of docs/PROTOCOL.md, in Java's camelCase; a card is a String such as
 * "TH" or "XR#2", null where this seat has not seen it, and a JSON null is a Java null
 * (Integer, String, Target). Rules.points, Rules.gridScore and Rules.holeScores score a card, a
 * grid and a hole as golfref does. Json.java, beside this file, reads and writes the lines.
 */

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class GolfBot {
    /** The protocol version this library speaks. */
    public static final int PROTOCOL = 3;

    private GolfBot() {}

    /** What a bot writes: one of `legal` for the decision of `view`. */
    @FunctionalInterface
    public interface Chooser {
        String choose(View view, List<String> legal);
    }

    /** A seat's grid slot: a king's first card (View.firstTarget). */
    public record Target(int seat, int slot) {}

    /** hello.rules: the match's rule set (docs/PROTOCOL.md#hellorules). A field that can be off is null when off. */
    public static final class Rules {
        public final String preset;
        public final int players;
        /** "ROWSxCOLS", as hello writes it; rows and cols are its two numbers. */
        public final String layout;
        public final int rows;
        public final int cols;
        public final int decks;
        public final Integer jokers;
        public final int twos;
        public final String courtValues;
        public final int revealCount;
        public final String reveal;
        public final String revealChoice;
        public final String flipAfterThrow;
        public final String swapFace;
        public final boolean knocking;
        public final Integer knockPenalty;
        public final boolean knockDouble;
        public final String lines;
        public final String cancel;
        public final String pairScope;
        public final Integer blockBonus;
        public final boolean cardPowers;
        public final int holes;
        public final int turnLimit;
        // The house options (protocol 3, docs/RULES.md#house-options); a protocol-2 hello has none
        // of them, and each then is off or neutral.
        /** Points of every rank in play by rank letter ("X": a joker): the whole card table as hello gives it. */
        public final Map<String, Integer> cardValues;
        /** Points of one rank of one suit by card ("JH"), over cardValues. */
        public final Map<String, Integer> suitValues;
        /** Jokers in the whole shoe (null: two per deck). */
        public final Integer jokerCount;
        /** What a cancelled line of jokers scores in total (null: 0, as any cancelled line). */
        public final Integer jokerPair;
        /** "cancel", or "keep": a cancelled line with a negative card keeps its cards' points. */
        public final String negativePairs;
        public final Integer twoColumnBonus;
        public final Integer jackColumnsBonus;
        /** {N, M}: a grid score of exactly N becomes M; null when off. */
        public final int[] exactScore;
        public final Integer closerPenalty;
        public final Integer closerBonus;
        public final Integer lowScoreBonus;
        public final Integer tiePenalty;
        public final boolean flipInsteadOfDraw;
        public final Integer flipOut;

        /** Each rank letter's points (NO_POINTS where the rules have no such rank). */
        private final int[] rankPoints = new int[128];
        private static final int NO_POINTS = Integer.MIN_VALUE;

        /** The rules of a hello message's `rules`; fields added by later versions are ignored. */
        public Rules(Map<?, ?> json) {
            Fields r = new Fields(json, "hello.rules");
            preset = r.text("preset");
            players = r.integer("players");
            layout = r.text("layout");
            int x = layout.indexOf('x');
            try {
                rows = Integer.parseInt(layout.substring(0, Math.max(x, 0)));
                cols = Integer.parseInt(layout.substring(x + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("hello.rules.layout: ROWSxCOLS expected, found " + Json.quote(layout), e);
            }
            decks = r.integer("decks");
            jokers = r.integerOrNull("jokers");
            twos = r.integer("twos");
            courtValues = r.text("court_values");
            revealCount = r.integer("reveal_count");
            reveal = r.text("reveal");
            revealChoice = r.text("reveal_choice");
            flipAfterThrow = r.text("flip_after_throw");
            swapFace = r.text("swap_face");
            knocking = r.flag("knocking");
            knockPenalty = r.integerOrNull("knock_penalty");
            knockDouble = r.flag("knock_double");
            lines = r.text("lines");
            cancel = r.text("cancel");
            pairScope = r.text("pair_scope");
            blockBonus = r.integerOrNull("block_bonus");
            cardPowers = r.flag("card_powers");
            holes = r.integer("holes");
            turnLimit = r.integer("turn_limit");
            cardValues = r.points("card_values");
            suitValues = r.points("suit_values");
            jokerCount = r.integerOrNull("joker_count");
            jokerPair = r.integerOrNull("joker_pair");
            negativePairs = r.has("negative_pairs") ? r.text("negative_pairs") : "cancel";
            twoColumnBonus = r.integerOrNull("two_column_bonus");
            jackColumnsBonus = r.integerOrNull("jack_columns_bonus");
            List<?> exact = r.listOrNull("exact_score");
            exactScore = exact == null ? null : new int[] {
                r.integer(exact.get(0), "exact_score"),
                r.integer(exact.get(1), "exact_score"),
            };
            closerPenalty = r.integerOrNull("closer_penalty");
            closerBonus = r.integerOrNull("closer_bonus");
            lowScoreBonus = r.integerOrNull("low_score_bonus");
            tiePenalty = r.integerOrNull("tie_penalty");
            flipInsteadOfDraw = r.has("flip_instead_of_draw") && r.flag("flip_instead_of_draw");
            flipOut = r.integerOrNull("flip_out");

            Arrays.fill(rankPoints, NO_POINTS);
            if (!cardValues.isEmpty()) {
                for (Map.Entry<String, Integer> entry : cardValues.entrySet()) {
                    String rank = entry.getKey();
                    if (rank.length() != 1 || rank.charAt(0) >= 128) {
                        throw new IllegalArgumentException("hello.rules.card_values: a rank letter expected, found " + Json.quote(rank));
                    }
                    rankPoints[rank.charAt(0)] = entry.getValue();
                }
            } else { // a protocol-2 hello: the table of twos, court_values and jokers
                boolean court = courtValues.equals("11/12");
                for (char digit = '3'; digit <= '9'; digit++) {
                    rankPoints[digit] = digit - '0';
                }
                rankPoints['A'] = 1;
                rankPoints['2'] = twos;
                rankPoints['T'] = 10;
                rankPoints['J'] = court ? 11 : 10;
                rankPoints['Q'] = court ? 12 : 10;
                rankPoints['K'] = 0;
                if (jokers != null) {
                    rankPoints['X'] = jokers;
                }
            }
        }

        /**
         * Points of a card under these rules ("JH", "XR#2"; an unseen card, null, counts `unseen`): its
         * suit's own value where suitValues has one, else its rank's in the card table. gridScore and
         * holeScores score what a whole grid and the table add.
         */
        public int points(String card, int unseen) {
            if (card == null) {
                return unseen;
            }
            if (!suitValues.isEmpty() && card.length() >= 2) {
                Integer bySuit = suitValues.get(card.substring(0, 2));
                if (bySuit != null) {
                    return bySuit;
                }
            }
            char rank = card.isEmpty() ? 0 : card.charAt(0);
            int points = rank < 128 ? rankPoints[rank] : NO_POINTS;
            if (points == NO_POINTS) {
                throw new IllegalArgumentException("no card " + Json.quote(card) + " is played under these rules");
            }
            return points;
        }

        /** A line that cancels (cancel: line) or a group where pairs cancel (cancel: pairs). */
        private record Group(boolean column, int[] slots) {}

        /** The groups in golfref's scan order: columns, then rows, then diagonals. */
        private List<Group> groups() {
            List<Group> out = new ArrayList<>();
            if (cancel.equals("pairs") && pairScope.equals("grid")) {
                int[] all = new int[rows * cols];
                for (int s = 0; s < all.length; s++) {
                    all[s] = s;
                }
                out.add(new Group(false, all));
            } else {
                boolean line = cancel.equals("line");
                boolean withRows = line ? !lines.equals("columns") : pairScope.equals("columns+rows");
                for (int c = 0; c < cols; c++) {
                    int[] slots = new int[rows];
                    for (int r = 0; r < rows; r++) {
                        slots[r] = r * cols + c;
                    }
                    out.add(new Group(true, slots));
                }
                for (int r = 0; withRows && r < rows; r++) {
                    int[] slots = new int[cols];
                    for (int c = 0; c < cols; c++) {
                        slots[c] = r * cols + c;
                    }
                    out.add(new Group(false, slots));
                }
                if (line && lines.equals("columns+rows+diagonals") && rows == cols) {
                    int[] down = new int[rows];
                    int[] up = new int[rows];
                    for (int i = 0; i < rows; i++) {
                        down[i] = i * cols + i;
                        up[i] = i * cols + cols - 1 - i;
                    }
                    out.add(new Group(false, down));
                    out.add(new Group(false, up));
                }
            }
            List<Group> lines = new ArrayList<>();
            for (Group group : out) {
                if (group.slots().length >= 2) { // a line of one card is no line
                    lines.add(group);
                }
            }
            return lines;
        }

        /** `total` split over `n` cards as golfref splits a block's or a joker pair's total (the first ones get 1 more). */
        private static int[] shares(int total, int n) {
            int share = Math.floorDiv(total, n);
            int rest = total - share * n;
            int[] out = new int[n];
            for (int i = 0; i < n; i++) {
                out[i] = share + (i < rest ? 1 : 0);
            }
            return out;
        }

        /**
         * A grid's score as golfref scores it (docs/RULES.md, "Card values and scoring"), exactScore
         * applied: blocks, cancelled lines or pairs, jokerPair, negativePairs and the column bonuses all
         * count. `grid` is rows * cols cards, row-major. An unseen card (null) counts `unseen` and cancels
         * with nothing: the score of a grid with one is an estimate. The adjustments between players
         * need every grid: holeScores.
         */
        public int gridScore(String[] grid, int unseen) {
            int n = grid.length;
            char[] ranks = new char[n]; // 0: unseen
            int[] points = new int[n];
            for (int s = 0; s < n; s++) {
                ranks[s] = grid[s] == null ? 0 : grid[s].charAt(0);
                points[s] = points(grid[s], unseen);
            }
            int[] own = points.clone(); // a card is negative by its own points, not by a block's share
            boolean[] done = new boolean[n]; // a block card keeps its share, whatever line runs through it
            if (blockBonus != null && rows >= 2 && cols >= 2) {
                for (int r = 0; r + 1 < rows; r++) {
                    for (int c = 0; c + 1 < cols; c++) {
                        int[] square = {r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1};
                        boolean block = ranks[square[0]] != 0;
                        for (int s : square) {
                            block = block && !done[s] && ranks[s] == ranks[square[0]];
                        }
                        if (!block) {
                            continue;
                        }
                        int[] share = shares(blockBonus, 4);
                        for (int i = 0; i < 4; i++) {
                            done[square[i]] = true;
                            points[square[i]] = share[i];
                        }
                    }
                }
            }
            List<Group> cancelled = new ArrayList<>();
            for (Group group : groups()) {
                int[] slots = group.slots();
                if (cancel.equals("line")) {
                    boolean same = ranks[slots[0]] != 0;
                    for (int s : slots) {
                        same = same && ranks[s] == ranks[slots[0]];
                    }
                    if (same) {
                        cancelled.add(group);
                    }
                } else { // pairs: every card whose rank is there twice or more
                    int[] hit = new int[slots.length];
                    int hits = 0;
                    for (int s : slots) {
                        int count = 0;
                        for (int t : slots) {
                            count += ranks[t] == ranks[s] ? 1 : 0;
                        }
                        if (ranks[s] != 0 && count >= 2) {
                            hit[hits++] = s;
                        }
                    }
                    if (hits > 0) {
                        cancelled.add(new Group(group.column(), Arrays.copyOf(hit, hits)));
                    }
                }
            }
            int[] columns = new int[128]; // by rank: the cancelled columns it is in
            boolean keep = negativePairs.equals("keep");
            for (Group group : cancelled) {
                // Under cancel: pairs each rank's cards are a line of their own, in the order they first come.
                Map<Character, List<Integer>> lines = new LinkedHashMap<>();
                for (int s : group.slots()) {
                    lines.computeIfAbsent(ranks[s], rank -> new ArrayList<>()).add(s);
                }
                for (Map.Entry<Character, List<Integer>> entry : lines.entrySet()) {
                    char rank = entry.getKey();
                    List<Integer> line = entry.getValue();
                    if (group.column()) {
                        columns[rank]++;
                    }
                    boolean negative = false;
                    for (int s : line) {
                        negative = negative || own[s] < 0;
                    }
                    // A card a block or an earlier line decided keeps what it got there.
                    if (jokerPair != null && rank == 'X') {
                        int[] share = shares(jokerPair, line.size());
                        for (int i = 0; i < line.size(); i++) {
                            if (!done[line.get(i)]) {
                                points[line.get(i)] = share[i];
                            }
                        }
                    } else if (!(keep && negative)) {
                        for (int s : line) {
                            if (!done[s]) {
                                points[s] = 0;
                            }
                        }
                    }
                    for (int s : line) {
                        done[s] = true;
                    }
                }
            }
            int total = 0;
            for (int p : points) {
                total += p;
            }
            if (twoColumnBonus != null) {
                for (int count : columns) {
                    total += count >= 2 ? twoColumnBonus : 0;
                }
            }
            if (jackColumnsBonus != null && columns['J'] >= 2) {
                total += jackColumnsBonus;
            }
            if (exactScore != null && total == exactScore[0]) {
                total = exactScore[1];
            }
            return total;
        }

        /**
         * Every seat's hole score as golfref scores it: gridScore, a failed knock's penalty (a tie for
         * lowest fails), then in order closerPenalty (unless the one who ended the hole first is
         * lowest), closerBonus, lowScoreBonus and last tiePenalty. `closer` and `knocker` are the
         * view's (null: none): rules.holeScores(view.grids, view.closer, view.knocker, 5).
         */
        public int[] holeScores(String[][] grids, Integer closer, Integer knocker, int unseen) {
            int players = grids.length;
            int[] raw = new int[players];
            for (int s = 0; s < players; s++) {
                raw[s] = gridScore(grids[s], unseen);
            }
            int[] out = raw.clone();
            if (knocker != null) {
                boolean failed = false;
                for (int s = 0; s < players; s++) {
                    failed = failed || (s != knocker && raw[s] <= raw[knocker]);
                }
                if (failed) {
                    out[knocker] += knockDouble ? Math.max(raw[knocker], 0) : knockPenalty == null ? 0 : knockPenalty;
                }
            }
            Integer first = closer != null ? closer : knocker;
            if (first != null && closerPenalty != null && out[first] > min(out)) {
                out[first] += closerPenalty;
            }
            if (first != null && closerBonus != null) {
                out[first] += closerBonus;
            }
            if (lowScoreBonus != null) {
                int low = min(out);
                for (int s = 0; s < players; s++) {
                    out[s] += out[s] == low ? lowScoreBonus : 0;
                }
            }
            if (tiePenalty != null) {
                int[] before = out.clone();
                for (int s = 0; s < players; s++) {
                    for (int t = 0; t < players; t++) {
                        if (t != s && before[t] == before[s]) {
                            out[s] += tiePenalty;
                            break;
                        }
                    }
                }
            }
            return out;
        }

        private static int min(int[] values) {
            int low = values[0];
            for (int v : values) {
                low = Math.min(low, v);
            }
            return low;
        }
    }

    /** hello.time, in milliseconds; matchMs is 0 when the match sets no limit. */
    public static final class Time {
        public final long startupMs;
        public final long moveMs;
        public final long bankMs;
        public final long incrementMs;
        public final long graceMs;
        public final long matchMs;

        public Time(Map<?, ?> json) {
            Fields t = new Fields(json, "hello.time");
            startupMs = t.longInteger("startup_ms");
            moveMs = t.longInteger("move_ms");
            bankMs = t.longInteger("bank_ms");
            incrementMs = t.longInteger("increment_ms");
            graceMs = t.longInteger("grace_ms");
            matchMs = t.has("match_ms") ? t.longInteger("match_ms") : 0;
        }
    }

    /** A request's view of the table (docs/PROTOCOL.md#the-view), its events, and the match's rules and time. */
    public static final class View {
        public final Rules rules;
        public final Time time;
        public final long requestId;
        /** What this decision may take, in milliseconds (the per-decision limit plus the bank). */
        public final long timeMs;
        public final int seat;
        public final int hole;
        public final int starter;
        public final Integer toMove;
        /** reveal, draw, place, flip or target. */
        public final String decision;
        /** Every seat's grid, row-major: grids[seat][slot], null where this seat has not seen the card. */
        public final String[][] grids;
        public final boolean[][] faceUp;
        /** The whole discard pile, bottom first: the last card is the top. */
        public final String[] discard;
        public final int stockSize;
        public final String drawn;
        public final String drawnFrom;
        public final String power;
        public final Target firstTarget;
        public final Integer closer;
        public final Integer knocker;
        /** By seat: the turns each seat has finished in this hole. */
        public final int[] turns;
        /** By seat: the match totals. */
        public final int[] totals;
        /** The scores of finished holes, by hole and then by seat. */
        public final int[][] holeScores;
        /** What happened since this seat's previous request, as JSON objects (docs/PROTOCOL.md#events). */
        public final List<Map<String, Object>> events;

        /** The view of a request message. */
        public View(Map<?, ?> request, Rules rules, Time time) {
            Fields q = new Fields(request, "request");
            Fields v = q.object("view");
            this.rules = rules;
            this.time = time;
            requestId = q.longInteger("id");
            timeMs = q.has("time_ms") ? q.longInteger("time_ms") : 0;
            seat = v.integer("seat");
            hole = v.integer("hole");
            starter = v.integer("starter");
            toMove = v.integerOrNull("to_move");
            decision = v.textOrNull("decision");
            List<?> gridList = v.list("grids");
            List<?> upList = v.list("face_up");
            grids = new String[gridList.size()][];
            faceUp = new boolean[upList.size()][];
            for (int s = 0; s < grids.length; s++) {
                List<?> grid = v.list(gridList.get(s), "grids");
                grids[s] = new String[grid.size()];
                for (int i = 0; i < grid.size(); i++) {
                    grids[s][i] = v.textOrNull(grid.get(i), "grids");
                }
            }
            for (int s = 0; s < faceUp.length; s++) {
                List<?> up = v.list(upList.get(s), "face_up");
                faceUp[s] = new boolean[up.size()];
                for (int i = 0; i < up.size(); i++) {
                    faceUp[s][i] = v.flag(up.get(i), "face_up");
                }
            }
            List<?> pile = v.list("discard");
            discard = new String[pile.size()];
            for (int i = 0; i < discard.length; i++) {
                discard[i] = v.text(pile.get(i), "discard");
            }
            stockSize = v.integer("stock_size");
            drawn = v.textOrNull("drawn");
            drawnFrom = v.textOrNull("drawn_from");
            power = v.textOrNull("power");
            List<?> first = v.listOrNull("first_target");
            firstTarget = first == null ? null : new Target(
                v.integer(first.get(0), "first_target"),
                v.integer(first.get(1), "first_target"));
            closer = v.integerOrNull("closer");
            knocker = v.integerOrNull("knocker");
            turns = v.integers(v.get("turns"), "turns");
            totals = v.integers(v.get("totals"), "totals");
            List<?> past = v.list("hole_scores");
            holeScores = new int[past.size()][];
            for (int h = 0; h < holeScores.length; h++) {
                holeScores[h] = v.integers(past.get(h), "hole_scores");
            }
            List<Map<String, Object>> happened = new ArrayList<>();
            for (Object event : q.has("events") ? q.list("events") : List.of()) {
                happened.add(q.object(event, "events").copy());
            }
            events = Collections.unmodifiableList(happened);
        }

        /** This seat's own grid (null where it has not seen the card). */
        public String[] grid() {
            return grids[seat];
        }
    }

    /** Play one match on stdin and stdout: ready on hello, choose on every request, stop at goodbye or end of input. */
    public static void play(String name, String version, Chooser chooser) {
        // UTF-8 whatever the locale: a bot's environment may set none, and Java would then use ASCII.
        play(name, version, chooser, new InputStreamReader(System.in, StandardCharsets.UTF_8),
                new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    }

    /** play on the given input and output, for a bot that tests itself on lines of its own. */
    public static void play(String name, String version, Chooser chooser, Reader input, Writer output) {
        BufferedReader in = new BufferedReader(input);
        Rules rules = null;
        Time time = null;
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                Object parsed;
                try {
                    parsed = Json.parse(line);
                } catch (Json.SyntaxException e) {
                    continue; // golfref never sends a line that is not JSON
                }
                if (!(parsed instanceof Map<?, ?> message)) {
                    continue;
                }
                Object type = message.get("type");
                if ("hello".equals(type)) {
                    Fields hello = new Fields(message, "hello");
                    rules = new Rules(hello.object("rules").map());
                    time = new Time(hello.object("time").map());
                    Map<String, Object> ready = new LinkedHashMap<>();
                    ready.put("type", "ready");
                    ready.put("name", name);
                    ready.put("version", version);
                    send(output, ready);
                } else if ("request".equals(type) && rules != null) {
                    View view = new View(message, rules, time);
                    List<String> legal = new ArrayList<>();
                    Fields request = new Fields(message, "request");
                    for (Object choice : request.list("legal")) {
                        legal.add(request.text(choice, "legal"));
                    }
                    String action = chooser.choose(view, Collections.unmodifiableList(legal));
                    // Sent as it is: an action not in `legal` is the referee's illegal_action fault.
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("type", "answer");
                    answer.put("id", view.requestId);
                    answer.put("action", action);
                    send(output, answer);
                } else if ("goodbye".equals(type)) {
                    return;
                }
                // Notices (hole_end, match_end) and unknown types need no answer.
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void send(Writer output, Map<String, Object> message) throws IOException {
        // One line, flushed at once: the referee is waiting for it, and stdout is a pipe.
        output.write(Json.write(message));
        output.write('\n');
        output.flush();
    }

    /**
     * The fields of one JSON object, read as the protocol types them. An error names the field by its
     * path ("hello.rules.twos"), put together only then: a string concatenated on every read would
     * cost each request the time to build it, and a bot's start the time to link each such site.
     */
    private record Fields(Map<?, ?> map, Fields parent, String name) {
        Fields(Map<?, ?> map, String name) {
            this(map, null, name);
        }

        /** The path of this object's member `key`, for an error message. */
        String where(String key) {
            return (parent == null ? name : parent.where(name)) + "." + key;
        }

        IllegalArgumentException wrong(String key, String expected, Object found) {
            String what = found == null ? "null" : Json.write(found);
            if (what.length() > 60) {
                what = what.substring(0, 60) + "...";
            }
            return new IllegalArgumentException(where(key) + ": " + expected + " expected, found " + what);
        }

        boolean has(String key) {
            return map.containsKey(key);
        }

        Object get(String key) {
            if (!map.containsKey(key)) {
                throw new IllegalArgumentException(where(key) + " is missing");
            }
            return map.get(key);
        }

        // Each reader takes the value and the member it is (or is an item of), to name it in an error.

        String text(Object value, String key) {
            if (value instanceof String text) {
                return text;
            }
            throw wrong(key, "a string", value);
        }

        String textOrNull(Object value, String key) {
            return value == null ? null : text(value, key);
        }

        long longInteger(Object value, String key) {
            if (value instanceof Long n) {
                return n;
            }
            throw wrong(key, "an integer", value);
        }

        int integer(Object value, String key) {
            long n = longInteger(value, key);
            if (n != (int) n) {
                throw wrong(key, "an integer of 32 bits", value);
            }
            return (int) n;
        }

        boolean flag(Object value, String key) {
            if (value instanceof Boolean flag) {
                return flag;
            }
            throw wrong(key, "true or false", value);
        }

        List<?> list(Object value, String key) {
            if (value instanceof List<?> items) {
                return items;
            }
            throw wrong(key, "an array", value);
        }

        Fields object(Object value, String key) {
            if (value instanceof Map<?, ?> members) {
                return new Fields(members, this, key);
            }
            throw wrong(key, "an object", value);
        }

        int[] integers(Object value, String key) {
            List<?> items = list(value, key);
            int[] out = new int[items.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = integer(items.get(i), key);
            }
            return out;
        }

        String text(String key) {
            return text(get(key), key);
        }

        String textOrNull(String key) {
            return textOrNull(map.get(key), key);
        }

        int integer(String key) {
            return integer(get(key), key);
        }

        long longInteger(String key) {
            return longInteger(get(key), key);
        }

        /** An option that is off (null, or absent from an older protocol's message) or a number. */
        Integer integerOrNull(String key) {
            Object value = map.get(key);
            return value == null ? null : integer(value, key);
        }

        boolean flag(String key) {
            return flag(get(key), key);
        }

        List<?> list(String key) {
            return list(get(key), key);
        }

        List<?> listOrNull(String key) {
            Object value = map.get(key);
            return value == null ? null : list(value, key);
        }

        Fields object(String key) {
            return object(get(key), key);
        }

        /** A table of points by name (card_values, suit_values); empty where absent. */
        Map<String, Integer> points(String key) {
            Map<String, Integer> out = new LinkedHashMap<>();
            if (map.get(key) != null) {
                Fields table = object(key);
                for (Map.Entry<?, ?> entry : table.map().entrySet()) {
                    String name = (String) entry.getKey(); // Json makes every name a String
                    out.put(name, table.integer(entry.getValue(), name));
                }
            }
            return Collections.unmodifiableMap(out);
        }

        /** The object as a Map of its own. */
        Map<String, Object> copy() {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.put((String) entry.getKey(), entry.getValue());
            }
            return Collections.unmodifiableMap(out);
        }
    }
}
