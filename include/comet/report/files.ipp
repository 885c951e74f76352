// comet/report/files.ipp — the definitions of comet/report/files.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/files.hpp>

namespace comet {

COMET_DECL void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& body) {
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
