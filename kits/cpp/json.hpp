// json.hpp: a small JSON reader and writer for golfref bots (C++17, standard library only).
//
//     json::Value message = json::parse(line);              // throws json::Error on anything but one JSON text
//     std::string type = message["type"].as_string();       // a missing member reads as null
//     json::Value answer = json::Object{{"type", "answer"}, {"id", 4}, {"action", "stock"}};
//     std::cout << answer.dump() << '\n';                    // {"type":"answer","id":4,"action":"stock"}
//
// A Value is null, a boolean, a number (a long long where the text is a whole number that
// fits one, else a double), a UTF-8 string, an array or an object (its members in the order
// of the text). Strings decode every escape, \uXXXX surrogate pairs included (a lone
// surrogate becomes U+FFFD, as it has no UTF-8). The reader follows RFC 8259 to the letter
// (no trailing commas, leading zeros, comments or raw control characters) so that a broken
// line is an error, not a guess. Part of the golfref C++ starter kit (MIT licence, as golfref).
#ifndef GOLFREF_JSON_HPP
#define GOLFREF_JSON_HPP

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace json {

// A text that is not JSON, or a value read as a type it does not have.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Value;
using Array = std::vector<Value>;
// A vector, not a map: the members keep their order and a lookup among a few dozen is quick.
using Object = std::vector<std::pair<std::string, Value>>;

enum class Type { null, boolean, integer, real, string, array, object };

class Value {
public:
    Value() = default;
    Value(std::nullptr_t) {}
    Value(bool b) : data_(b) {}
    // Every integer type, so that an int, a size_t or a long long each converts without ambiguity.
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Value(T n) : data_(static_cast<long long>(n)) {}
    Value(double d) : data_(d) {}
    Value(const char *s) : data_(std::string(s)) {}
    Value(std::string s) : data_(std::move(s)) {}
    Value(std::string_view s) : data_(std::string(s)) {}
    Value(Array a) : data_(std::move(a)) {}
    Value(Object o) : data_(std::move(o)) {}

    Type type() const { return static_cast<Type>(data_.index()); }
    bool is_null() const { return type() == Type::null; }
    bool is_bool() const { return type() == Type::boolean; }
    bool is_number() const { return type() == Type::integer || type() == Type::real; }
    bool is_integer() const { return type() == Type::integer; }
    bool is_string() const { return type() == Type::string; }
    bool is_array() const { return type() == Type::array; }
    bool is_object() const { return type() == Type::object; }

    bool as_bool() const { return get<bool>("a boolean"); }
    // A whole number; a double is accepted when it is one (2.0), anything else is an Error.
    long long as_int() const {
        if (is_integer()) return std::get<long long>(data_);
        double d = get<double>("a number");
        if (std::trunc(d) != d || d < -9.2e18 || d > 9.2e18) throw Error("json: " + dump() + " is not a whole number");
        return static_cast<long long>(d);
    }
    double as_double() const { return is_integer() ? static_cast<double>(std::get<long long>(data_)) : get<double>("a number"); }
    const std::string &as_string() const { return get<std::string>("a string"); }
    const Array &as_array() const { return get<Array>("an array"); }
    const Object &as_object() const { return get<Object>("an object"); }
    Array &as_array() { return get<Array>("an array"); }
    Object &as_object() { return get<Object>("an object"); }

    // The member `key` of an object, or nullptr (also when this is not an object).
    const Value *find(std::string_view key) const {
        if (const auto *members = std::get_if<Object>(&data_))
            for (const auto &[name, value] : *members)
                if (name == key) return &value;
        return nullptr;
    }
    // The member `key`, or null when there is none: a reader of optional fields needs no check.
    const Value &operator[](std::string_view key) const {
        const Value *found = find(key);
        return found ? *found : null_value();
    }
    // Item `i` of an array, or null when there is none.
    const Value &operator[](std::size_t i) const {
        const auto *items = std::get_if<Array>(&data_);
        return items && i < items->size() ? (*items)[i] : null_value();
    }
    // How many items an array or members an object has; 0 for anything else.
    std::size_t size() const {
        if (const auto *items = std::get_if<Array>(&data_)) return items->size();
        if (const auto *members = std::get_if<Object>(&data_)) return members->size();
        return 0;
    }

    // This value as one line of JSON text (no spaces, non-ASCII as UTF-8).
    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

    friend bool operator==(const Value &a, const Value &b) { return a.data_ == b.data_; }
    friend bool operator!=(const Value &a, const Value &b) { return !(a == b); }

private:
    // In the order of Type.
    std::variant<std::nullptr_t, bool, long long, double, std::string, Array, Object> data_;

    static const Value &null_value() {
        static const Value null;
        return null;
    }

    template <class T>
    const T &get(const char *what) const {
        if (const T *v = std::get_if<T>(&data_)) return *v;
        throw Error(std::string("json: expected ") + what + ", got " + dump());
    }
    template <class T>
    T &get(const char *what) {
        if (T *v = std::get_if<T>(&data_)) return *v;
        throw Error(std::string("json: expected ") + what + ", got " + dump());
    }

    void write(std::string &out) const;
};

// `text` as a JSON string literal, quotes included.
inline std::string quote(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + '"';
}

inline void Value::write(std::string &out) const {
    switch (type()) {
        case Type::null: out += "null"; break;
        case Type::boolean: out += std::get<bool>(data_) ? "true" : "false"; break;
        case Type::integer: out += std::to_string(std::get<long long>(data_)); break;
        case Type::real: {
            double d = std::get<double>(data_);
            if (!std::isfinite(d)) throw Error("json: a number that is not finite has no JSON text");
            // The shortest text that reads back as the same double (17 digits always do); the
            // classic locale keeps the decimal point a point whatever locale the bot set.
            std::string written;
            for (int digits = 15; digits <= 17; ++digits) {
                std::ostringstream text;
                text.imbue(std::locale::classic());
                text.precision(digits);
                text << d;
                written = text.str();
                std::istringstream back(written);
                back.imbue(std::locale::classic());
                double read = 0;
                if (back >> read && read == d) break;
            }
            out += written;
            if (written.find_first_of(".eE") == std::string::npos) out += ".0";  // still a double when read back
            break;
        }
        case Type::string: out += quote(std::get<std::string>(data_)); break;
        case Type::array: {
            out += '[';
            const char *comma = "";
            for (const Value &item : std::get<Array>(data_)) {
                out += comma;
                item.write(out);
                comma = ",";
            }
            out += ']';
            break;
        }
        case Type::object: {
            out += '{';
            const char *comma = "";
            for (const auto &[key, value] : std::get<Object>(data_)) {
                out += comma;
                out += quote(key);
                out += ':';
                value.write(out);
                comma = ",";
            }
            out += '}';
            break;
        }
    }
}

namespace detail {

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    Value document() {
        Value v = value();
        space();
        if (at_ < text_.size()) fail("text after the value");
        return v;
    }

private:
    static constexpr int max_depth = 256;  // deeper nesting is no message of golfref's: refused before the stack runs out
    std::string_view text_;
    std::size_t at_ = 0;
    int depth_ = 0;

    [[noreturn]] void fail(const std::string &what) const {
        throw Error("json: " + what + " at byte " + std::to_string(at_));
    }
    bool done() const { return at_ >= text_.size(); }
    char peek() const { return done() ? '\0' : text_[at_]; }
    void expect(char c) {
        if (peek() != c) fail(done() ? std::string("end of text where '") + c + "' was expected"
                                     : std::string("'") + peek() + "' where '" + c + "' was expected");
        ++at_;
    }
    void space() {
        while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++at_;
    }
    void word(std::string_view w) {
        if (text_.substr(at_, w.size()) != w) fail("not a JSON value");
        at_ += w.size();
    }

    Value value() {
        space();
        switch (peek()) {
            case '{': return object();
            case '[': return array();
            case '"': return Value(string());
            case 't': word("true"); return Value(true);
            case 'f': word("false"); return Value(false);
            case 'n': word("null"); return Value();
            default:
                if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number();
                fail(done() ? "end of text where a value was expected" : "not a JSON value");
        }
    }

    void nest() {
        if (++depth_ > max_depth) fail("nesting deeper than " + std::to_string(max_depth));
    }

    Value array() {
        nest();
        ++at_;
        Array items;
        space();
        if (peek() == ']') {
            ++at_;
        } else {
            for (;;) {
                items.push_back(value());
                space();
                if (peek() == ',') { ++at_; continue; }
                expect(']');
                break;
            }
        }
        --depth_;
        return Value(std::move(items));
    }

    Value object() {
        nest();
        ++at_;
        Object members;
        space();
        if (peek() == '}') {
            ++at_;
        } else {
            for (;;) {
                space();
                if (peek() != '"') fail("an object's key must be a string");
                std::string key = string();
                space();
                expect(':');
                members.emplace_back(std::move(key), value());
                space();
                if (peek() == ',') { ++at_; continue; }
                expect('}');
                break;
            }
        }
        --depth_;
        return Value(std::move(members));
    }

    bool digits() {
        std::size_t start = at_;
        while (peek() >= '0' && peek() <= '9') ++at_;
        return at_ > start;
    }

    Value number() {
        std::size_t start = at_;
        bool whole = true;
        if (peek() == '-') ++at_;
        if (peek() == '0') {
            ++at_;
            if (peek() >= '0' && peek() <= '9') fail("a number with a leading zero");
        } else if (!digits()) {
            fail("a '-' without digits");
        }
        if (peek() == '.') {
            ++at_;
            whole = false;
            if (!digits()) fail("a '.' without digits after it");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++at_;
            whole = false;
            if (peek() == '+' || peek() == '-') ++at_;
            if (!digits()) fail("an exponent without digits");
        }
        std::string text(text_.substr(start, at_ - start));
        if (whole) {
            errno = 0;
            long long n = std::strtoll(text.c_str(), nullptr, 10);  // no locale: digits only
            if (errno != ERANGE) return Value(n);
        }
        std::istringstream in(text);  // a double, read in the classic locale whatever the bot set
        in.imbue(std::locale::classic());
        double d = 0;
        if (!(in >> d)) fail("a number out of the range of a double");
        return Value(d);
    }

    unsigned hex4() {
        unsigned code = 0;
        for (int i = 0; i < 4; ++i, ++at_) {
            char c = peek();
            code <<= 4;
            if (c >= '0' && c <= '9') code |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') code |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') code |= static_cast<unsigned>(c - 'A' + 10);
            else fail("\\u without four hex digits");
        }
        return code;
    }

    static void put_utf8(std::string &out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    // One character of raw UTF-8 (the lead byte at at_), checked: a string holds text, not bytes.
    void utf8(std::string &out) {
        auto byte = [this](std::size_t i) { return static_cast<unsigned char>(at_ + i < text_.size() ? text_[at_ + i] : 0); };
        unsigned char lead = byte(0);
        std::size_t n = lead >= 0xF5 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
        if (n == 0) fail("a string that is not UTF-8");
        unsigned code = lead & (0xFF >> (n + 1));
        for (std::size_t i = 1; i < n; ++i) {
            if ((byte(i) & 0xC0) != 0x80) fail("a string that is not UTF-8");
            code = (code << 6) | (byte(i) & 0x3F);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
        if ((n == 3 && code < 0x800) || (n == 4 && (code < 0x10000 || code > 0x10FFFF)) || (code >= 0xD800 && code < 0xE000))
            fail("a string that is not UTF-8");
        out.append(text_.substr(at_, n));
        at_ += n;
    }

    std::string string() {
        ++at_;  // the opening quote
        std::string out;
        for (;;) {
            if (done()) fail("a string without its closing quote");
            char c = peek();
            if (c == '"') {
                ++at_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
            if (static_cast<unsigned char>(c) >= 0x80) {
                utf8(out);
                continue;
            }
            ++at_;
            if (c != '\\') {
                out += c;
                continue;
            }
            char e = peek();
            ++at_;
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code < 0xDC00 && text_.substr(at_, 2) == "\\u") {
                        std::size_t high_end = at_;
                        at_ += 2;
                        unsigned low = hex4();
                        if (low >= 0xDC00 && low < 0xE000) {
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        } else {
                            at_ = high_end;  // not its pair: the next escape is read on its own
                            code = 0xFFFD;
                        }
                    } else if (code >= 0xD800 && code < 0xE000) {
                        code = 0xFFFD;  // a lone surrogate
                    }
                    put_utf8(out, code);
                    break;
                }
                default:
                    --at_;
                    fail("an unknown escape in a string");
            }
        }
    }
};

}  // namespace detail

// The value of one JSON text (whitespace around it allowed); Error when it is anything else.
inline Value parse(std::string_view text) { return detail::Parser(text).document(); }

}  // namespace json

#endif
