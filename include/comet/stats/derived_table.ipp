// comet/stats/derived_table.ipp — the definitions of comet/stats/derived_table.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/stats/derived_table.hpp>

namespace comet {
namespace detail {

COMET_DECL bool table_name_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

}  // namespace detail
}  // namespace comet

namespace comet {

COMET_DECL void check_table(const derived_table& t) {
    if (t.name.empty()) raise<invalid_argument>(-1, "derived table: no name (it names the table's file)");
    for (char c : t.name)
        if (!detail::table_name_char(c))
            raise<invalid_argument>(-1, "derived table '", t.name, "': its name may hold only letters, digits, '_' and '-'");
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
        if (t.columns[i].empty()) raise<invalid_argument>(-1, "derived table '", t.name, "': column ", i, " has no name");
        for (std::size_t j = 0; j < i; ++j)
            if (t.columns[j] == t.columns[i])
                raise<invalid_argument>(-1, "derived table '", t.name, "': two columns named '", t.columns[i], "'");
    }
    for (std::size_t r = 0; r < t.rows.size(); ++r)
        if (t.rows[r].cells.size() != t.columns.size())
            raise<invalid_argument>(-1, "derived table '", t.name, "': row ", r, " has ", t.rows[r].cells.size(),
                                    " cells for ", t.columns.size(), " columns");
}

}  // namespace comet

namespace comet {

COMET_DECL derived_table& derived_table::add(std::vector<cell> cells, std::vector<flag> flags) {
    if (cells.size() != columns.size())
        raise<invalid_argument>(-1, "derived table '", name, "': a row of ", cells.size(), " cells for ", columns.size(),
                                " columns");
    for (const flag& f : flags)
        if (column(f.what) == columns.size())
            raise<invalid_argument>(-1, "derived table '", name, "': a flag names column '", f.what, "', which it does not have");
    rows.push_back({std::move(cells), std::move(flags)});
    return *this;
}

COMET_DECL std::size_t derived_table::column(std::string_view heading) const noexcept {
    std::size_t i = 0;
    while (i < columns.size() && columns[i] != heading) ++i;
    return i;
}

}  // namespace comet
