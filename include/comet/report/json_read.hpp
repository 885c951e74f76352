// comet/report/json_read.hpp — reads results.json back: the context and every record (kernel,
// params, raw samples, iterations, overheads, stop, notes), which is what comparing two runs
// needs (stats/compare.hpp). The fits and analyses are not read: they are derived from the
// records, and `comet::analyse` derives them again.
//
// The parser is a minimal strict RFC 8259 one (no JSON dependency for reading one schema back,
// as json.hpp writes it by hand): no comments, trailing commas, NaN tokens, leading zeros,
// unescaped control characters or duplicate names in an object, nothing after the value, and
// nesting at most 256 deep. Every error is one line naming the file, the line and what was
// expected: "a/results.json:14: expected ',' or '}' after a member, found ']'". It does not
// check that strings are valid UTF-8 (comet writes them so; a byte it does not expect is kept).
// Reading follows the schema's rule for new keys: a key this reader does not know is skipped.
// Round trip: `read_results` of `write_json`'s output gives the records back equal, except
// that a real param with an integral value (2.0, written "2") reads back as an integer; names
// (`point_name`) do not tell them apart.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/report/context.hpp>
#include <comet/report/json.hpp>
#include <comet/stats/record.hpp>
#include <comet/stats/validity.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace comet {

/// A results.json as read back: the run's context (what the file has of it: transport, nodes,
/// version, host, date, compiler, command line, extra), the notes its writer derived from the
/// machine (a loaded machine, frequency scaling, a debug build: `context_notes`), and its records.
struct results_file {
    context ctx;
    std::vector<std::string> notes;
    result_set results;
};

namespace detail::json_read {

/// A parsed JSON value, with the line it starts on for the errors that come after parsing.
struct value {
    enum class kind { null, boolean, number, string, array, object } k = kind::null;
    bool boolean = false;
    double number = 0.0;
    bool integral = false;      ///< a number written without fraction or exponent that fits an int64
    std::int64_t integer = 0;   ///< its value, when integral
    std::string text;           ///< a string's content
    std::vector<value> items;   ///< an array's elements, or an object's member values
    std::vector<std::string> keys;  ///< an object's member names, parallel to items
    std::size_t line = 1;

    const value* find(std::string_view key) const {
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
};

inline const char* kind_name(value::kind k) {
    switch (k) {
        case value::kind::null: return "null";
        case value::kind::boolean: return "a boolean";
        case value::kind::number: return "a number";
        case value::kind::string: return "a string";
        case value::kind::array: return "an array";
        default: return "an object";
    }
}

class parser {
public:
    parser(std::string_view text, std::string_view source) : s_(text), source_(source) {}

    value document() {
        skip_space();
        value v = parse(0);
        skip_space();
        if (i_ < s_.size()) fail("expected the end of the file after the value, found " + found());
        return v;
    }

    [[noreturn]] void fail(const std::string& what) const { fail_at(line_, what); }
    [[noreturn]] void fail_at(std::size_t line, const std::string& what) const {
        raise<invalid_argument>(-1, source_, ':', line, ": ", what);
    }

private:
    static constexpr std::size_t max_depth = 256;

    std::string found() const {
        if (i_ >= s_.size()) return "the end of the file";
        const char c = s_[i_];
        if (static_cast<unsigned char>(c) < 0x20) return "a control character";
        return std::string("'") + c + "'";
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
            if (s_[i_] == '\n') ++line_;
            ++i_;
        }
    }
    bool take(char c) {
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    void literal(std::string_view word) {
        if (s_.substr(i_, word.size()) != word) fail("expected a value, found " + found());
        i_ += word.size();
    }

    value parse(std::size_t depth) {
        if (depth > max_depth) fail("nested deeper than " + std::to_string(max_depth) + " levels");
        value v;
        v.line = line_;
        if (i_ >= s_.size()) fail("expected a value, found the end of the file");
        switch (s_[i_]) {
            case '{': parse_object(v, depth); break;
            case '[': parse_array(v, depth); break;
            case '"':
                v.k = value::kind::string;
                v.text = parse_string();
                break;
            case 't':
                literal("true");
                v.k = value::kind::boolean;
                v.boolean = true;
                break;
            case 'f':
                literal("false");
                v.k = value::kind::boolean;
                break;
            case 'n': literal("null"); break;
            default: parse_number(v);
        }
        return v;
    }

    void parse_object(value& v, std::size_t depth) {
        v.k = value::kind::object;
        ++i_;
        skip_space();
        if (take('}')) return;
        for (;;) {
            skip_space();
            if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name in quotes, found " + found());
            std::string key = parse_string();
            for (const auto& k : v.keys)
                if (k == key) fail("duplicate member name \"" + key + "\"");
            skip_space();
            if (!take(':')) fail("expected ':' after the member name \"" + key + "\", found " + found());
            skip_space();
            v.keys.push_back(std::move(key));
            v.items.push_back(parse(depth + 1));
            skip_space();
            if (take('}')) return;
            if (!take(',')) fail("expected ',' or '}' after a member, found " + found());
        }
    }

    void parse_array(value& v, std::size_t depth) {
        v.k = value::kind::array;
        ++i_;
        skip_space();
        if (take(']')) return;
        for (;;) {
            skip_space();
            v.items.push_back(parse(depth + 1));
            skip_space();
            if (take(']')) return;
            if (!take(',')) fail("expected ',' or ']' after an array element, found " + found());
        }
    }

    unsigned hex4() {
        unsigned u = 0;
        for (int k = 0; k < 4; ++k, ++i_) {
            const char c = i_ < s_.size() ? s_[i_] : '\0';
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) fail("expected 4 hex digits after \\u, found " + found());
            u = u * 16 + static_cast<unsigned>(d);
        }
        return u;
    }
    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    std::string parse_string() {
        ++i_;  // the opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("expected '\"' to close the string, found the end of the file");
            const char c = s_[i_];
            if (c == '"') {
                ++i_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("expected '\"' to close the string, found a control character (escape it)");
            if (c != '\\') {
                out += c;
                ++i_;
                continue;
            }
            ++i_;
            const char e = i_ < s_.size() ? s_[i_] : '\0';
            ++i_;
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
                    unsigned cp = hex4();
                    if (cp >= 0xd800 && cp <= 0xdbff) {  // a high surrogate: its low half must follow
                        if (!(take('\\') && take('u'))) fail("expected a low surrogate \\uDC00..\\uDFFF after \\u" + std::to_string(cp));
                        const unsigned lo = hex4();
                        if (lo < 0xdc00 || lo > 0xdfff) fail("expected a low surrogate \\uDC00..\\uDFFF after a high one");
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                        fail("a low surrogate \\u escape without a high one before it");
                    }
                    append_utf8(out, cp);
                    break;
                }
                default:
                    --i_;
                    fail("expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) after '\\', found " + found());
            }
        }
    }

    void parse_number(value& v) {
        const std::size_t start = i_;
        const auto digits = [&] {
            const std::size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
            return i_ - from;
        };
        take('-');
        if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') {
            if (i_ == start) fail("expected a value, found " + found());
            fail("expected a digit after '-', found " + found());
        }
        if (take('0')) {
            if (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') fail("a number has a leading zero");
        } else {
            digits();
        }
        bool integral = true;
        if (take('.')) {
            integral = false;
            if (digits() == 0) fail("expected a digit after the decimal point, found " + found());
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            integral = false;
            ++i_;
            if (!take('+')) take('-');
            if (digits() == 0) fail("expected a digit in the exponent, found " + found());
        }
        const char* first = s_.data() + start;
        const char* last = s_.data() + i_;
        v.k = value::kind::number;
        const auto [end, ec] = std::from_chars(first, last, v.number);
        if (ec != std::errc() || end != last || !std::isfinite(v.number))
            fail("the number " + std::string(first, last) + " is out of the range of a double");
        if (integral) {
            const auto [iend, iec] = std::from_chars(first, last, v.integer);
            v.integral = iec == std::errc() && iend == last;
        }
    }

    std::string_view s_;
    std::string_view source_;
    std::size_t i_ = 0;
    std::size_t line_ = 1;
};

}  // namespace detail::json_read

/// Reads a results.json (schema_version 2, or 1 of earlier runs; docs/results-schema.md) from `text`; `source` names
/// it in errors (the file's path).
/// @throws invalid_argument, one line: "<source>:<line>: <what was expected, and found>".
COMET_DECL results_file read_results(std::string_view text, std::string_view source = "<input>");

/// Reads the results.json at `path`.
/// @throws invalid_argument naming the file: it cannot be read, or as `read_results`.
/// @code  const comet::results_file before = comet::read_results_file("before/results.json");  @endcode
COMET_DECL results_file read_results_file(const std::filesystem::path& path);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/json_read.ipp>
#endif
