/*
 * Json.java: a small JSON reader and writer for golfref bots (Java 17, standard library only).
 *
 * Json.parse turns one JSON text into plain Java values: an object is a Map<String, Object>
 * (its members in order), an array a List<Object>, a string a String, a number a Long when it
 * is an integer that fits one and a Double otherwise, true and false a Boolean, and null is
 * null (Map.containsKey tells a null member from a missing one). Text that is not exactly one
 * JSON value is a Json.SyntaxException saying what was expected and where. Json.write turns
 * such values (any Number, Map, Collection or array) back into JSON text on one line.
 * Part of the golfref Java starter kit (MIT licence, as golfref).
 */

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Json {
    /** Arrays and objects nested deeper than this are refused: a recursive reader needs a stack frame per level. */
    public static final int MAX_DEPTH = 256;

    /** A text that is not JSON: the message says what was expected, at which character. */
    public static final class SyntaxException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        /** Where in the text the reader stopped, counting characters from 0. */
        public final int offset;

        SyntaxException(String message, int offset) {
            super("JSON: " + message + " at character " + offset);
            this.offset = offset;
        }
    }

    private final String text;
    private int at;
    private int depth;

    private Json(String text) {
        this.text = text;
    }

    /** The value of one JSON text (white space around it allowed), or a SyntaxException. */
    public static Object parse(String text) {
        Json reader = new Json(text);
        reader.space();
        Object value = reader.value();
        reader.space();
        if (reader.at < text.length()) {
            throw reader.error("unexpected " + reader.describe() + " after the value");
        }
        return value;
    }

    /** `value` as JSON text on one line. Strings are written as they are, escaping what JSON must. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    /** `text` as a JSON string literal, quotes included. */
    public static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        quote(text, out);
        return out.toString();
    }

    // -- reading ------------------------------------------------------------------------------

    private SyntaxException error(String message) {
        return new SyntaxException(message, at);
    }

    private String describe() {
        if (at >= text.length()) {
            return "end of text";
        }
        char c = text.charAt(at);
        return c < 0x20 || c > 0x7e ? String.format("character U+%04X", (int) c) : "'" + c + "'";
    }

    private void space() {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            at++;
        }
    }

    private Object value() {
        if (at >= text.length()) {
            throw error("a value expected, found end of text");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> number();
            default -> throw error("a value expected, found " + describe());
        };
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("'" + word + "' expected, found " + describe());
        }
        at += word.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("arrays and objects nested deeper than " + MAX_DEPTH);
        }
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("'" + c + "' expected, found " + describe());
        }
        at++;
    }

    private Map<String, Object> object() {
        enter();
        at++; // {
        Map<String, Object> members = new LinkedHashMap<>();
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
        } else {
            while (true) {
                space();
                if (at >= text.length() || text.charAt(at) != '"') {
                    throw error("a member's name (a string) expected, found " + describe());
                }
                String key = string();
                space();
                expect(':');
                space();
                members.put(key, value()); // a repeated name: the last one counts, as in most readers
                space();
                if (at < text.length() && text.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect('}');
                break;
            }
        }
        depth--;
        return members;
    }

    private List<Object> array() {
        enter();
        at++; // [
        List<Object> items = new ArrayList<>();
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
        } else {
            while (true) {
                space();
                items.add(value());
                space();
                if (at < text.length() && text.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect(']');
                break;
            }
        }
        depth--;
        return items;
    }

    private String string() {
        int start = ++at; // after the opening quote
        StringBuilder out = null; // made only when an escape needs it: most strings have none
        while (true) {
            if (at >= text.length()) {
                throw new SyntaxException("unterminated string", start - 1);
            }
            char c = text.charAt(at);
            if (c == '"') {
                String plain = text.substring(start, at++);
                return out == null ? plain : out.append(plain).toString();
            }
            if (c < 0x20) {
                throw error("a control character in a string (write it as an escape)");
            }
            if (c != '\\') {
                at++;
                continue;
            }
            if (out == null) {
                out = new StringBuilder();
            }
            out.append(text, start, at);
            at++;
            if (at >= text.length()) {
                throw new SyntaxException("unterminated string", start - 1);
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                // A character beyond U+FFFF comes as two escapes, a surrogate pair: Java strings
                // hold UTF-16, so each escape is one char and the pair is that character.
                case 'u' -> out.append(hex4());
                default -> {
                    at -= 2;
                    throw error("an unknown escape '\\" + e + "' in a string");
                }
            }
            start = at;
        }
    }

    private char hex4() {
        if (at + 4 > text.length()) {
            throw error("four hex digits expected after \\u");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
            char c = text.charAt(at);
            // Not Character.digit: it takes any script's digits, and JSON's are ASCII.
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) {
                throw error("a hex digit expected in \\u, found " + describe());
            }
            code = code * 16 + digit;
            at++;
        }
        return (char) code;
    }

    private Object number() {
        int start = at;
        if (text.charAt(at) == '-') {
            at++;
        }
        if (at < text.length() && text.charAt(at) == '0') {
            at++; // a leading zero stands alone: 0, 0.5, never 01
        } else if (!digits()) {
            throw error("a digit expected, found " + describe());
        }
        boolean integer = true;
        if (at < text.length() && text.charAt(at) == '.') {
            at++;
            integer = false;
            if (!digits()) {
                throw error("a digit expected after the decimal point, found " + describe());
            }
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            integer = false;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                at++;
            }
            if (!digits()) {
                throw error("a digit expected in the exponent, found " + describe());
            }
        }
        String literal = text.substring(start, at);
        if (integer) {
            try {
                return Long.parseLong(literal);
            } catch (NumberFormatException tooLarge) {
                return Double.parseDouble(literal); // beyond a long: its nearest double
            }
        }
        return Double.parseDouble(literal);
    }

    private boolean digits() {
        int start = at;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at > start;
    }

    // -- writing ------------------------------------------------------------------------------

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String string) {
            quote(string, out);
        } else if (value instanceof Boolean bool) {
            out.append(bool.booleanValue());
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no " + d);
            }
            out.append(d);
        } else if (value instanceof Number number) {
            out.append(number); // Long, Integer, Short, Byte, BigInteger, BigDecimal: their digits
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            String comma = "";
            for (Map.Entry<?, ?> member : map.entrySet()) {
                if (!(member.getKey() instanceof String key)) {
                    throw new IllegalArgumentException("a JSON object's names are strings, not " + member.getKey());
                }
                out.append(comma);
                quote(key, out);
                out.append(": ");
                write(member.getValue(), out);
                comma = ", ";
            }
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            String comma = "";
            for (Object item : items) {
                out.append(comma);
                write(item, out);
                comma = ", ";
            }
            out.append(']');
        } else if (value.getClass().isArray()) {
            out.append('[');
            for (int i = 0; i < Array.getLength(value); i++) {
                out.append(i == 0 ? "" : ", ");
                write(Array.get(value, i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no JSON for a " + value.getClass().getName() + ": " + value);
        }
    }

    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                        out.append(c).append(text.charAt(++i)); // a character beyond U+FFFF, whole
                    } else if (c < 0x20 || Character.isSurrogate(c)) {
                        // Control characters must be escaped; so is a lone surrogate, which has no
                        // UTF-8 form and would be lost when the line is encoded.
                        out.append("\\u");
                        for (int shift = 12; shift >= 0; shift -= 4) {
                            out.append(Character.forDigit((c >> shift) & 0xF, 16));
                        }
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
