// comet/stats/derived_table.hpp — `derived_table`: what an analysis derives from records, as a
// table of named columns, for an analysis the library does not know. The writers show every one
// the same way — the console as a table under its title, CSV as `<name>.csv` in a report folder,
// results.json under "tables" — so an analysis written outside comet reaches every output
// without an edit of comet.
//
//   comet::derived_table t{.name = "hop_cost", .title = "cost per hop", .kernel = "pairwise",
//                          .columns = {"nodes", "per hop[µs]"}};
//   t.add({std::int64_t{16}, 8.3});
//   t.add({std::int64_t{32}, comet::derived_table::cell{}}, {{"per hop[µs]", "one point only"}});
//   report.tables.push_back(std::move(t));
//
// A cell is empty, an integer, a real or a word. A figure derived from a flagged one is flagged:
// a row carries its flags (the column and why), and the writers mark the flagged cells.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>
#include <comet/stats/record.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace comet {

struct derived_table {
    /// An empty cell (a value that could not be derived), an integer, a real or a word.
    using cell = std::variant<std::monostate, std::int64_t, double, std::string>;
    struct row {
        std::vector<cell> cells;  ///< one per column
        std::vector<flag> flags;  ///< a flagged cell: `what` is its column's name
        friend bool operator==(const row&, const row&) = default;
    };

    /// Names the table in files (`<name>.csv`) and in results.json: letters, digits, '_', '-'.
    std::string name;
    /// The heading the console prints above it.
    std::string title = {};
    /// The kernel whose records it was derived from ("" when several).
    std::string kernel = {};
    /// True when it lays out the kernel's records themselves, a row per record (the NIST
    /// seed's tables A1–A6): the console then shows it instead of the records' own table.
    bool lays_out_records = false;
    std::vector<std::string> columns = {};
    std::vector<row> rows = {};
    /// What a reader must know about the table as a whole.
    std::vector<std::string> notes = {};

    /// Adds a row of one cell per column, with its flags (each naming a column).
    /// @throws invalid_argument naming the table when the cells are not one per column or a
    ///         flag names no column.
    COMET_DECL derived_table& add(std::vector<cell> cells, std::vector<flag> flags = {});

    /// The index of column `heading`, or columns.size() when there is none.
    COMET_DECL std::size_t column(std::string_view heading) const noexcept;

    friend bool operator==(const derived_table&, const derived_table&) = default;
};

namespace detail {
COMET_DECL bool table_name_char(char c) noexcept;
}  // namespace detail

/// Checks what a writer relies on: a name that is a file name of letters, digits, '_' and '-';
/// columns with distinct, non-empty names; every row one cell per column.
/// @throws invalid_argument naming the table and what is wrong.
COMET_DECL void check_table(const derived_table& t);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/stats/derived_table.ipp>
#endif
