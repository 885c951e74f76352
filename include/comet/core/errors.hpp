// comet/core/errors.hpp — the exceptions comet raises, and the one helper that formats them.
//
// Every message is one line and, where a rank is involved, starts with "rank R: " so that a
// user reading the output of a 128-rank job knows which rank complained and about what value.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
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

template <class... Parts>
std::string concat(const Parts&... parts) {
    std::ostringstream os;
    (os << ... << parts);
    return os.str();
}

}  // namespace detail

/// Throws `E` with the message "rank R: parts..." (or just "parts..." when `rank` < 0).
/// @code
///   comet::raise<comet::invalid_argument>(t.rank(), "echo: hop distance ", h, " needs ", need, " nodes");
/// @endcode
template <class E, class... Parts>
[[noreturn]] void raise(int rank, const Parts&... parts) {
    if (rank >= 0) throw E(detail::concat("rank ", rank, ": ", parts...));
    throw E(detail::concat(parts...));
}

}  // namespace comet
