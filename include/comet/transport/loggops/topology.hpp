// comet/transport/loggops/topology.hpp — the LogGOPS machine's interconnect as data, and the
// links a message crosses on it:
//
//   full           every pair of nodes has a path of its own: only the two ends' interfaces
//                  are shared (LogGOPS as Hoefler, Schneider and Lumsdaine state it).
//   torus D        a D-dimensional torus whose sizes are the node count factored as evenly as it
//   torus AxBxC    goes (1,048,576 nodes in 3: 128 x 128 x 64; a prime count is a ring), or
//                  given. Routing by dimension order, each dimension the short way round (half
//                  way: upwards); between neighbours 1 link, a link per step.
//   fat_tree K     a K-ary n-tree (Petrini and Vanneschi): n levels of switches of K ports down
//                  and K up, n the least with K^n >= nodes, full bisection. A message goes up to
//                  the lowest switch above both ends and down again, choosing its way up by the
//                  destination's digits (d-mod-k routing: Zahavi's, and InfiniBand's default);
//                  between two nodes of one leaf switch 2 links, 2h for the h-th level.
//
// Every link is a resource of its own, one per direction: a packet of s bytes keeps it busy
// G·s, and a packet that finds it busy waits (loggops/model.hpp says when). Routing is
// deterministic, so packets between two nodes keep their order.
#pragma once

#include <comet/core/errors.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace comet::loggops {

/// The interconnect's kind.
enum class topology : unsigned char { full, torus, fat_tree };

/// A topology as a machine file gives it (its text: `full`, `torus 3`, `torus 16x16x8`,
/// `fat_tree 16`).
struct shape {
    topology kind = topology::full;
    int dimensions = 0;       ///< torus: its dimensions (sizes from the node count when `sizes` is empty)
    std::vector<int> sizes;   ///< torus: each dimension's size, given
    int radix = 0;            ///< fat tree: K, each switch's ports down (and up)

    friend bool operator==(const shape&, const shape&) = default;
};

/// The most dimensions of a torus, and the widest fat-tree switch.
inline constexpr int max_torus_dimensions = 8;
inline constexpr int max_radix = 1024;

/// The text of `s`, as `parse_shape` reads it.
inline std::string to_string(const shape& s) {
    switch (s.kind) {
    case topology::full: return "full";
    case topology::torus: {
        if (s.sizes.empty()) return "torus " + std::to_string(s.dimensions);
        std::string out = "torus ";
        for (std::size_t i = 0; i < s.sizes.size(); ++i) out += (i ? "x" : "") + std::to_string(s.sizes[i]);
        return out;
    }
    case topology::fat_tree: return "fat_tree " + std::to_string(s.radix);
    }
    return "?";
}

namespace detail {

[[noreturn]] inline void bad_shape(const std::string& text, const std::string& why) {
    raise<invalid_argument>(-1, "loggops topology '", text, "': ", why);
}

/// A whole number of `lo..hi` in `text`, or a bad_shape naming `whole`.
inline int shape_number(const std::string& whole, const std::string& text, int lo, int hi, const char* what) {
    int v = 0;
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) v = -1;
    else v = std::stoi(text);
    if (v < lo || v > hi)
        bad_shape(whole, std::string(what) + " '" + text + "' is not a whole number of " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

}  // namespace detail

/// Reads a topology's text. @throws invalid_argument naming the text and what is wrong in it.
inline shape parse_shape(const std::string& text) {
    std::istringstream in(text);
    std::string kind, arg, extra;
    in >> kind >> arg >> extra;
    shape s;
    if (kind == "full" && arg.empty()) return s;
    if (!extra.empty()) detail::bad_shape(text, "more than a kind and one argument");
    if (kind == "torus") {
        s.kind = topology::torus;
        if (arg.find('x') == std::string::npos) {
            s.dimensions = detail::shape_number(text, arg, 1, max_torus_dimensions, "the number of dimensions");
            return s;
        }
        std::size_t from = 0;
        for (;;) {
            const std::size_t x = arg.find('x', from);
            s.sizes.push_back(detail::shape_number(text, arg.substr(from, x - from), 1, 1 << 24, "a dimension's size"));
            if (x == std::string::npos) break;
            from = x + 1;
        }
        if (s.sizes.size() > static_cast<std::size_t>(max_torus_dimensions))
            detail::bad_shape(text, "more than " + std::to_string(max_torus_dimensions) + " dimensions");
        s.dimensions = static_cast<int>(s.sizes.size());
        return s;
    }
    if (kind == "fat_tree") {
        s.kind = topology::fat_tree;
        s.radix = detail::shape_number(text, arg, 2, max_radix, "the switches' radix K");
        return s;
    }
    detail::bad_shape(text, "the kinds are 'full', 'torus D', 'torus AxBxC' and 'fat_tree K'");
}

/// `nodes` factored into `d` sizes as evenly as it goes, largest first (MPI_Dims_create's
/// answer): the prime factors, largest first, each to the dimension with the smallest product.
inline std::vector<int> balanced_sizes(int nodes, int d) {
    std::vector<int> primes;
    int n = nodes;
    for (int p = 2; static_cast<std::int64_t>(p) * p <= n; ++p)
        while (n % p == 0) primes.push_back(p), n /= p;
    if (n > 1) primes.push_back(n);
    std::vector<int> sizes(static_cast<std::size_t>(d), 1);
    for (auto p = primes.rbegin(); p != primes.rend(); ++p) {
        std::size_t least = 0;
        for (std::size_t i = 1; i < sizes.size(); ++i)
            if (sizes[i] < sizes[least]) least = i;
        sizes[least] *= *p;
    }
    std::sort(sizes.begin(), sizes.end(), std::greater<int>());
    return sizes;
}

/// The links of a shape on a number of nodes: how many, which a message crosses, and what
/// holding them costs. Built once per run.
class links {
public:
    /// @throws invalid_argument when the shape does not fit `nodes` (a torus whose sizes'
    ///         product is another number), naming both.
    links(const shape& s, int nodes) : kind_(s.kind) {
        if (s.kind == topology::torus) {
            sizes_ = s.sizes.empty() ? balanced_sizes(nodes, s.dimensions) : s.sizes;
            std::int64_t product = 1;
            for (int x : sizes_) product = std::min<std::int64_t>(product * x, std::int64_t{1} << 40);
            if (product != nodes)
                raise<invalid_argument>(-1, "loggops topology '", to_string(s), "' has ", product, " nodes, not the machine's ", nodes,
                                        " (give 'torus ", sizes_.size(), "' to size it from the nodes)");
            std::int64_t stride = 1;
            for (int x : sizes_) strides_.push_back(stride), stride *= x;
            count_ = static_cast<std::uint64_t>(nodes) * 2 * sizes_.size();
        } else if (s.kind == topology::fat_tree) {
            radix_ = s.radix;
            powers_.push_back(1);
            while (powers_.back() < nodes || powers_.size() == 1) powers_.push_back(powers_.back() * radix_);
            levels_ = static_cast<int>(powers_.size()) - 1;
            span_ = powers_.back();
            count_ = 2 * static_cast<std::uint64_t>(levels_) * static_cast<std::uint64_t>(span_);
        }
    }

    /// Directed links (0 when fully connected: no link is shared).
    std::uint64_t count() const noexcept { return count_; }
    /// Links between the two nearest distinct nodes (what a 2-node measurement crossed).
    int nearest() const noexcept { return kind_ == topology::torus ? 1 : kind_ == topology::fat_tree ? 2 : 0; }

    /// Calls `each(link)` for the links from `from` to `to`, in the order crossed (none when
    /// fully connected, or from a node to itself).
    template <class Each>
    void route(int from, int to, Each&& each) const {
        if (from == to || kind_ == topology::full) return;
        if (kind_ == topology::torus) {
            std::int64_t at = from;
            const std::size_t d = sizes_.size();
            for (std::size_t i = 0; i < d; ++i) {
                const std::int64_t size = sizes_[i], stride = strides_[i];
                const std::int64_t a = (at / stride) % size, b = (static_cast<std::int64_t>(to) / stride) % size;
                std::int64_t up = (b - a + size) % size;
                const bool upwards = 2 * up <= size;
                for (std::int64_t steps = upwards ? up : size - up, c = a; steps > 0; --steps) {
                    each(static_cast<std::uint64_t>((at * static_cast<std::int64_t>(d) + static_cast<std::int64_t>(i)) * 2 + (upwards ? 0 : 1)));
                    const std::int64_t next = upwards ? (c + 1) % size : (c + size - 1) % size;
                    at += (next - c) * stride;
                    c = next;
                }
            }
            return;
        }
        // The fat tree: up[level][i], then down[level][i], `span_` of each per level. The link
        // between a switch of level j >= 1 and the level above is (that switch) * K + (its up
        // port); between a node and its leaf switch, the node. A message from s to t crosses,
        // going up, the level-j switch of s's subtree reached by t's j - 1 lowest digits, by up
        // port t's digit j - 1; coming down, the level-j switch above t, from its up port t's
        // digit j - 1 (so each up port carries the traffic to one digit: d-mod-k).
        const std::int64_t k = radix_, s = from, t = to, span = span_;
        const auto& p = powers_;  // K^j
        int h = 1;                // the lowest level with a switch above both
        while (s / p[h] != t / p[h]) ++h;
        each(static_cast<std::uint64_t>(s));
        for (int j = 1; j < h; ++j)
            each(static_cast<std::uint64_t>(j * span + ((s / p[j]) * p[j - 1] + t % p[j - 1]) * k + (t / p[j - 1]) % k));
        for (int j = h - 1; j >= 1; --j)
            each(static_cast<std::uint64_t>((levels_ + j) * span + ((t / p[j]) * p[j - 1] + t % p[j - 1]) * k + (t / p[j - 1]) % k));
        each(static_cast<std::uint64_t>(levels_ * span + t));
    }

    /// What the shape is on these nodes ("a 128 x 128 x 64 torus").
    std::string describe() const {
        std::ostringstream os;
        switch (kind_) {
        case topology::full: os << "fully connected"; break;
        case topology::torus:
            os << "a ";
            for (std::size_t i = 0; i < sizes_.size(); ++i) os << (i ? " x " : "") << sizes_[i];
            os << " torus";
            break;
        case topology::fat_tree:
            os << "a " << radix_ << "-ary " << levels_ << "-tree fat tree (" << span_ << " ports at the leaves)";
            break;
        }
        return os.str();
    }

    /// Bytes the links' state takes (a time per link).
    std::uint64_t bytes() const noexcept { return count_ * sizeof(std::int64_t); }

private:
    topology kind_;
    std::vector<int> sizes_;
    std::vector<std::int64_t> strides_;
    std::vector<std::int64_t> powers_;  ///< fat tree: K^0 .. K^levels
    int radix_ = 0, levels_ = 0;
    std::int64_t span_ = 0;
    std::uint64_t count_ = 0;
};

}  // namespace comet::loggops
