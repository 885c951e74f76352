// comet/report/json/writer.hpp — a JSON writer, and nothing of what it writes: string literals
// (escaped, always valid UTF-8), numbers, integers, and a streaming writer of objects and arrays
// that places the commas and the indentation.
//
// Hand-written (a few dozen lines; no JSON dependency for the output formats comet writes) and
// deterministic: numbers in the shortest form that reads back to the same double
// (std::to_chars, never the stream and its locale), so identical inputs give byte-identical
// files that diff cleanly. NaN, infinities and absent optionals are written as `null` — JSON
// has no NaN token, and a file with one is rejected by strict parsers.
// Deliberately not here: any document comet writes with it — results.json (report/json.hpp
// and report/json/) and the Google-Benchmark-compatible JSON (report/gbench.hpp).
#pragma once

#include <comet/core/compiled.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <vector>

namespace comet::detail::json {

/// Appends `s` as a JSON string literal: quote and backslash escaped, control characters as
/// \u00XX, and any byte sequence that is not valid UTF-8 replaced by \ufffd (JSON text must be
/// UTF-8, and a host name or command line is not guaranteed to be).
COMET_DECL void write_string(std::ostream& os, std::string_view s);

/// Appends `v` with the fewest digits that read back to the same double; `null` when not finite.
/// Plain notation for magnitudes in [1e-4, 1e16) and exponent notation outside it (Python's
/// repr rule): 0.0001 and 2500000 read better than 1e-04 and 2.5e+06, which plain to_chars
/// would pick for being one character shorter.
COMET_DECL void write_number(std::ostream& os, double v);

template <class I>
    requires std::is_integral_v<I>
inline void write_integer(std::ostream& os, I v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);  // never the stream: no locale grouping
    os.write(buf, res.ptr - buf);
}

/// A streaming writer that tracks commas and indentation. Containers opened `compact` (and
/// everything inside them) are written on one line: params, stats and samples stay readable
/// as one line each instead of one line per number.
class writer {
public:
    COMET_DECL explicit writer(std::ostream& os);

    COMET_DECL void begin_object(bool compact = false);
    COMET_DECL void end_object();
    COMET_DECL void begin_array(bool compact = false);
    COMET_DECL void end_array();

    COMET_DECL void key(std::string_view k);

    COMET_DECL void string(std::string_view s);
    COMET_DECL void number(double v);
    COMET_DECL void number(std::optional<double> v);
    template <class I>
        requires std::is_integral_v<I>
    void integer(I v) {
        separate();
        write_integer(os_, v);
    }
    COMET_DECL void null();
    COMET_DECL void boolean(bool b);

    template <class V>
    void member(std::string_view k, const V& v) {
        key(k);
        if constexpr (std::is_same_v<V, double> || std::is_same_v<V, std::optional<double>>)
            number(v);
        else if constexpr (std::is_same_v<V, bool>)  // before is_integral: true, not 1
            boolean(v);
        else if constexpr (std::is_integral_v<V>)
            integer(v);
        else
            string(v);
    }

    /// Call once at the end: the file ends with a newline.
    COMET_DECL void finish();

private:
    struct level {
        bool compact;
        bool empty = true;
    };

    COMET_DECL void separate();
    COMET_DECL void open(char c, bool compact);
    COMET_DECL void close(char c);
    COMET_DECL void newline(std::size_t depth);

    std::ostream& os_;
    std::vector<level> stack_;
    bool after_key_ = false;
};

}  // namespace comet::detail::json

#if !defined(COMET_COMPILED)
#include <comet/report/json/writer.ipp>
#endif
