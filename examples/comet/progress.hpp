// A one-line progress bar on stderr, shown only when stderr is a terminal.
#pragma once

#include <comet/stats/record.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace comet_program {

class progress {
public:
    explicit progress(std::size_t total) : total_(total), on_(::isatty(2) != 0 && total > 0) {}
    void point(const comet::record& r) {
        ++done_;
        if (!on_) return;
        const std::size_t width = 30, filled = std::min(width, width * done_ / total_);
        std::fprintf(stderr, "\r[%s%s] %zu/%zu %-13s", std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(),
                     done_, total_, r.kernel.c_str());
        for (const auto& [name, value] : r.params)
            if (const auto* i = std::get_if<std::int64_t>(&value); i && name != "nodes")
                std::fprintf(stderr, " %s %lld", name.c_str(), static_cast<long long>(*i));
        std::fprintf(stderr, "   ");
        if (done_ >= total_) std::fprintf(stderr, "\r%*s\r", 100, "");
        std::fflush(stderr);
    }

private:
    std::size_t total_, done_ = 0;
    bool on_;
};

}  // namespace comet_program
