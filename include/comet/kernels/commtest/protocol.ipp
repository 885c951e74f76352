// comet/kernels/commtest/protocol.ipp — the definitions of comet/kernels/commtest/protocol.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/commtest/protocol.hpp>

namespace comet::kernels::commtest {

COMET_DECL std::string to_string(protocol p) {
    std::string out = "(";
    out += std::to_string(p.ordered);
    out += ',';
    out += std::to_string(p.variant);
    out += ')';
    return out;
}

COMET_DECL std::optional<protocol> parse_protocol(std::string_view text) {
    const auto trim = [](std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    };
    text = trim(text);
    if (text.size() < 5 || text.front() != '(' || text.back() != ')') return std::nullopt;
    text = text.substr(1, text.size() - 2);
    const auto comma = text.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    protocol p;
    for (auto [part, into] : {std::pair{trim(text.substr(0, comma)), &p.ordered}, std::pair{trim(text.substr(comma + 1)), &p.variant}}) {
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *into);
        if (ec != std::errc{} || end != part.data() + part.size() || part.empty()) return std::nullopt;
    }
    if (!is_valid(p)) return std::nullopt;
    return p;
}

}  // namespace comet::kernels::commtest
