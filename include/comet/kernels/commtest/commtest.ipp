// comet/kernels/commtest/commtest.ipp — the definitions of comet/kernels/commtest/commtest.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/commtest/commtest.hpp>

namespace comet::kernels::commtest {

COMET_DECL std::string to_string(const cache_setting& c) {
    switch (c.kind) {
    case cache_setting::mode::warm: return "warm";
    case cache_setting::mode::flushed: return "flushed";
    case cache_setting::mode::repeat: return "repeat:" + std::to_string(c.repeat);
    }
    return "?";
}

COMET_DECL std::optional<cache_setting> parse_cache(std::string_view s) {
    if (s == "warm") return cache_setting{};
    if (s == "flushed") return cache_setting{cache_setting::mode::flushed, 1};
    if (s.starts_with("repeat:")) {
        s.remove_prefix(7);
        std::size_t k = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), k);
        if (ec == std::errc{} && end == s.data() + s.size() && k >= 1 && k <= 1'000'000)
            return cache_setting{cache_setting::mode::repeat, k};
    }
    return std::nullopt;
}

COMET_DECL std::string to_string(const pair_set& ps) {
    std::string out;
    for (const auto& [a, b] : ps) {
        if (!out.empty()) out += '+';
        out += std::to_string(a);
        out += '-';
        out += std::to_string(b);
    }
    return out;
}

COMET_DECL std::optional<pair_set> parse_pairs(std::string_view s) {
    pair_set out;
    while (!s.empty()) {
        const auto plus = s.find('+');
        const std::string_view one = s.substr(0, plus);
        const auto dash = one.find('-');
        if (dash == std::string_view::npos) return std::nullopt;
        int a = -1, b = -1;
        const auto [e1, c1] = std::from_chars(one.data(), one.data() + dash, a);
        const auto [e2, c2] = std::from_chars(one.data() + dash + 1, one.data() + one.size(), b);
        if (c1 != std::errc{} || c2 != std::errc{} || e1 != one.data() + dash || e2 != one.data() + one.size()) return std::nullopt;
        out.emplace_back(a, b);
        if (plus == std::string_view::npos) break;
        s.remove_prefix(plus + 1);
        if (s.empty()) return std::nullopt;
    }
    if (out.empty()) return std::nullopt;
    return out;
}

COMET_DECL std::vector<std::size_t> default_volumes() { return {8192, 131072, 2097152}; }

COMET_DECL std::vector<std::size_t> default_message_counts() {
    std::vector<std::size_t> out;
    for (std::size_t n = 1; n <= 1024; n *= 2) out.push_back(n);
    return out;
}

COMET_DECL comet::sampling default_sampling() {
    comet::sampling s;
    s.iterations = 1;
    return s;
}

COMET_DECL std::size_t commtest_points(const commtest_config& cfg) {
    return cfg.pairs.size() * cfg.protocols.size() * cfg.volumes.size() * cfg.messages.size();
}

}  // namespace comet::kernels::commtest

namespace comet::kernels::commtest {
namespace detail {

COMET_DECL std::size_t default_flush_bytes() {
    long largest = 0;
#ifdef _SC_LEVEL1_DCACHE_SIZE
    for (int name : {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL4_CACHE_SIZE})
        largest = std::max(largest, ::sysconf(name));
#endif
    return largest > 0 ? 2 * static_cast<std::size_t>(largest) : std::size_t{32} << 20;
}

COMET_DECL void flush_caches(std::vector<unsigned char>& buffer) {
    for (std::size_t i = 0; i < buffer.size(); i += 64) buffer[i] = static_cast<unsigned char>(buffer[i] + 1);
    unsigned sum = 0;
    for (std::size_t i = 0; i < buffer.size(); i += 64) sum += buffer[i];
    repeat_dummy(sum);
}

}  // namespace detail
}  // namespace comet::kernels::commtest
