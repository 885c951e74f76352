// comet/report/files.hpp — writing a report's file so that a reader never finds half of it.
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/core/errors.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <system_error>

namespace comet {

/// Writes `path` through a temporary file in the same folder, renamed over `path` once
/// complete: a reader (or a run stopped half-way) finds the previous file or the new one,
/// never half of one. @throws error naming the file that could not be written.
COMET_DECL void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/report/files.ipp>
#endif
