/*
 * The Java starter bot: keeps low cards, swaps out its worst one. Edit choose.
 * GolfBot.java does the protocol and Json.java reads and writes its lines.
 *
 * Build: javac --release 17 -d classes Bot.java GolfBot.java Json.java
 * Run:   java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xms16m -Xmx256m \
 *             -XX:CompressedClassSpaceSize=64m -cp classes Bot
 * The flags size the JVM for a bot and its sandbox (a heap of at most 256 MiB; raise -Xmx for
 * more, below the sandbox's memory_mb); plain `java -cp classes Bot` plays the same.
 */

import java.util.List;

public final class Bot {
    static final int UNSEEN = 5; // points a card this seat has not seen is guessed at

    static String choose(GolfBot.View view, List<String> legal) {
        String[] grid = view.grid();
        int worst = 0;
        for (int slot = 1; slot < grid.length; slot++) {
            if (points(view, grid[slot]) > points(view, grid[worst])) {
                worst = slot;
            }
        }
        int worstPoints = points(view, grid[worst]);
        switch (view.decision) {
            case "draw" -> {
                boolean takeDiscard = legal.contains("discard")
                        && points(view, view.discard[view.discard.length - 1]) < worstPoints - 2;
                return takeDiscard ? "discard" : "stock";
            }
            case "place" -> {
                if (points(view, view.drawn) < worstPoints || !legal.contains("throw")) {
                    return "swap:" + worst;
                }
                return legal.contains("power") ? "power" : "throw"; // power: a J, Q or K with card powers on
            }
            case "flip" -> {
                // Turn up a card we have not seen: the flip then tells us something.
                for (String action : legal) {
                    if (action.startsWith("flip:") && grid[Integer.parseInt(action.substring(5))] == null) {
                        return action;
                    }
                }
                return legal.get(0);
            }
            case "target" -> {
                // A power's target ("target:SEAT:SLOT"): a card we have not seen, if any.
                for (String action : legal) {
                    String[] parts = action.split(":");
                    if (view.grids[Integer.parseInt(parts[1])][Integer.parseInt(parts[2])] == null) {
                        return action;
                    }
                }
                return legal.get(0);
            }
            default -> {
                return legal.get(0); // reveal: the first legal choice
            }
        }
    }

    static int points(GolfBot.View view, String card) {
        return view.rules.points(card, UNSEEN);
    }

    public static void main(String[] args) {
        GolfBot.play("java-starter", "1", Bot::choose);
    }
}
