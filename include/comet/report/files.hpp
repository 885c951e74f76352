// comet/report/files.hpp — writing a report's file so that a reader never finds half of it.
#pragma once

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
inline void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
    std::filesystem::path temporary = path;
    temporary.replace_filename("." + path.filename().string() + ".tmp");
    const auto discard = [&] {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
    };
    {
        std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
        if (!f) raise<error>(-1, "cannot write ", path.string());
        try {
            body(f);
            f.flush();
        } catch (...) {
            f.close();
            discard();
            throw;
        }
        if (!f) {
            f.close();
            discard();
            raise<error>(-1, "writing ", path.string(), " failed");
        }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        discard();
        raise<error>(-1, "cannot replace ", path.string(), ": ", ec.message());
    }
}

}  // namespace comet
