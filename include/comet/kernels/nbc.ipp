// comet/kernels/nbc.ipp — the definitions of comet/kernels/nbc.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/kernels/nbc.hpp>

namespace comet::kernels {

COMET_DECL std::optional<nbc_operation> parse_nbc_operation(std::string_view name) {
    for (auto o : all_nbc_operations)
        if (to_string(o) == name) return o;
    return std::nullopt;
}

COMET_DECL std::optional<progression> parse_progression(std::string_view name) {
    for (auto p : {progression::none, progression::test, progression::thread})
        if (to_string(p) == name) return p;
    return std::nullopt;
}

}  // namespace comet::kernels

namespace comet::kernels {
namespace detail::nbc_kernel {

COMET_DECL std::vector<progression> progressions(const nbc_config& c, bool has_thread) {
    if (!c.progressions.empty()) return c.progressions;
    if (has_thread) return {progression::none, progression::test, progression::thread};
    return {progression::none, progression::test};
}

COMET_DECL bool has_native(nbc_operation o, bool transport_has) {
    return transport_has && (o == nbc_operation::ibarrier || o == nbc_operation::ibcast || o == nbc_operation::iallreduce);
}

COMET_DECL std::vector<std::pair<progression, std::size_t>> curves(const std::vector<progression>& ps, const nbc_config& c) {
    std::vector<std::pair<progression, std::size_t>> out;
    for (auto p : ps) {
        if (p != progression::test) {
            out.emplace_back(p, 0);
            continue;
        }
        for (std::size_t i : c.intervals) out.emplace_back(p, i);
    }
    return out;
}

COMET_DECL double median_of(std::span<const double> v) { return v.empty() ? 0.0 : percentile(v, 50.0); }

}  // namespace detail::nbc_kernel
}  // namespace comet::kernels

namespace comet::kernels {

COMET_DECL std::size_t nbc_points(const nbc_config& c, bool thread, bool native) {
    const auto curves = detail::nbc_kernel::curves(detail::nbc_kernel::progressions(c, thread), c);
    const std::size_t per_point = 1 + curves.size() * c.methods.size();
    std::size_t n = 0;
    for (auto o : c.operations) {
        const bool has = detail::nbc_kernel::has_native(o, native);
        std::size_t records = 0;  // per size
        if (c.implementations.empty())
            records = per_point * (has ? 2 : 1);
        else
            for (auto i : c.implementations) records += i == nbc::implementation::native && !has ? 1 : per_point;
        n += (o == nbc_operation::ibarrier ? 1 : c.sizes.size()) * records;
    }
    return n;
}

}  // namespace comet::kernels
