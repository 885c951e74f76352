// comet/core/errors.hpp — the exceptions comet raises, and the one helper that formats them.
//
// Every message is one line and, where a rank is involved, starts with "rank R: " so that a
// user reading the output of a 128-rank job knows which rank complained and about what value.
#pragma once

#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace comet {

/// Base of every comet exception.
class error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A caller passed a value comet cannot use (a hop distance beyond the cube, a message size over
/// the limit, a rank out of range, ...). The message names the value.
class invalid_argument : public error {
public:
    using error::error;
};

/// Every rank is blocked and nothing can wake any of them. Raised on every rank; the message
/// lists what each rank waits for.
class deadlock_error : public error {
public:
    using error::error;
};

/// A message arrived that is larger than the buffer of the receive it matched.
class truncation_error : public error {
public:
    using error::error;
};

/// A kernel or protocol needs a capability the transport does not offer.
class not_supported : public error {
public:
    using error::error;
};

/// What a kernel received is not what was sent: a payload, a source, a tag, a size or a count of
/// messages differs (kernels check on request, `verify = true`; comet/transport/decorators/
/// faulty.hpp injects such faults). The message names the kernel, the rank, the point and the
/// difference.
class verification_error : public error {
public:
    using error::error;
};

/// An operation did not complete within the time it was given (a watchdog's limit, or a lost
/// message's wait under comet::faulty). The message names the rank, the operation and the peer.
class timeout_error : public error {
public:
    using error::error;
};

/// A rank called `abort(message)` (CoMet's `error_exit`): every rank stops.
class aborted : public error {
public:
    using error::error;
};

/// This rank was stopped because another rank failed. Transports raise it inside the stopped
/// ranks so they unwind; `run` reports the original failure, not this.
class stopped : public error {
public:
    using error::error;
};

namespace detail {

/// One part of an error message, as `std::ostringstream << part` would print it: text as it
/// is, `char`s as characters, `bool` as 0 or 1, integers in decimal, floating point as `%g`
/// (six significant digits), and any other type by its own operator<<.
///
/// Why not the stream itself: every distinct list of parts instantiates `raise` anew, dozens in
/// a kernel's translation unit, and with a stream each copy inlined the stream's machinery
/// (~600 bytes of code each to compile at -O3). A part is a tag and a value, so a `raise` is a
/// small array of them handed to one out-of-line formatter (`format_parts`), compiled once.
struct part {
    enum class kind : unsigned char { text, character, signed_integer, unsigned_integer, floating, long_floating, other };
    kind k = kind::text;
    union {
        std::string_view text;
        char character;
        long long signed_integer;
        unsigned long long unsigned_integer;
        double floating;
        long double long_floating;
        struct {
            const void* value;
            void (*print)(std::string&, const void*);
        } other;
    };

    template <class Part>
    part(const Part& p) : text() {  // NOLINT: implicit on purpose, from each argument of `raise`
        if constexpr (std::is_convertible_v<const Part&, std::string_view>)
            text = std::string_view(p);
        else if constexpr (std::is_same_v<Part, bool>)
            k = kind::character, character = p ? '1' : '0';
        else if constexpr (std::is_same_v<Part, char> || std::is_same_v<Part, signed char> || std::is_same_v<Part, unsigned char>)
            k = kind::character, character = static_cast<char>(p);
        else if constexpr (std::is_integral_v<Part> && std::is_signed_v<Part>)
            k = kind::signed_integer, signed_integer = p;
        else if constexpr (std::is_integral_v<Part>)
            k = kind::unsigned_integer, unsigned_integer = p;
        else if constexpr (std::is_same_v<Part, long double>)
            k = kind::long_floating, long_floating = p;
        else if constexpr (std::is_floating_point_v<Part>)
            k = kind::floating, floating = static_cast<double>(p);
        else
            k = kind::other, other = {&p, [](std::string& out, const void* v) {
                                          std::ostringstream os;
                                          os << *static_cast<const Part*>(v);
                                          out += os.str();
                                      }};
    }
};

/// "rank R: " (when `rank` >= 0) and the parts, one after the other. Out of line, and not
/// cold: `concat` also names things on good paths (a plot's label, a verification's step).
[[gnu::noinline]] inline std::string format_parts(int rank, std::initializer_list<part> parts) {
    std::string out;
    const auto printf_append = [&](const char* format, auto v) {
        char buffer[64];
        const int n = std::snprintf(buffer, sizeof buffer, format, v);
        if (n > 0) out.append(buffer, n < static_cast<int>(sizeof buffer) ? static_cast<std::size_t>(n) : sizeof buffer - 1);
    };
    if (rank >= 0) out.append("rank ").append(std::to_string(rank)).append(": ");
    for (const part& p : parts) switch (p.k) {
        case part::kind::text: out.append(p.text); break;
        case part::kind::character: out.push_back(p.character); break;
        case part::kind::signed_integer: out.append(std::to_string(p.signed_integer)); break;
        case part::kind::unsigned_integer: out.append(std::to_string(p.unsigned_integer)); break;
        case part::kind::floating: printf_append("%g", p.floating); break;
        case part::kind::long_floating: printf_append("%Lg", p.long_floating); break;
        case part::kind::other: p.other.print(out, p.other.value); break;
        }
    return out;
}

/// The parts, printed one after the other into one string.
template <class... Parts>
std::string concat(const Parts&... parts) {
    return format_parts(-1, {part(parts)...});
}

/// Throws `E` with the message of `format_parts`: one copy per exception type.
template <class E>
[[noreturn, gnu::cold, gnu::noinline]] void throw_parts(int rank, std::initializer_list<part> parts) {
    throw E(format_parts(rank, parts));
}

}  // namespace detail

/// Throws `E` with the message "rank R: parts..." (or just "parts..." when `rank` < 0).
/// Cold: a check's good path is its compare, and the message is put together only on the way out.
/// @code
///   comet::raise<comet::invalid_argument>(t.rank(), "echo: hop distance ", h, " needs ", need, " nodes");
/// @endcode
template <class E, class... Parts>
[[noreturn, gnu::cold]] inline void raise(int rank, const Parts&... parts) {
    detail::throw_parts<E>(rank, {detail::part(parts)...});
}

}  // namespace comet
