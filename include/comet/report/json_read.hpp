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
    COMET_DECL parser(std::string_view text, std::string_view source);

    COMET_DECL value document();

    [[noreturn]] COMET_DECL void fail(const std::string& what) const;
    [[noreturn]] COMET_DECL void fail_at(std::size_t line, const std::string& what) const;

private:
    static constexpr std::size_t max_depth = 256;

    COMET_DECL std::string found() const;
    COMET_DECL void skip_space();
    COMET_DECL bool take(char c);
    COMET_DECL void literal(std::string_view word);

    COMET_DECL value parse(std::size_t depth);

    COMET_DECL void parse_object(value& v, std::size_t depth);

    COMET_DECL void parse_array(value& v, std::size_t depth);

    COMET_DECL unsigned hex4();
    COMET_DECL static void append_utf8(std::string& out, unsigned cp);

    COMET_DECL std::string parse_string();

    COMET_DECL void parse_number(value& v);

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
