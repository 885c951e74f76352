// Scratch files for tests that write report files: a fresh folder under the system's temporary
// folder, and a file's contents as a string.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace comet_test {

/// The whole of file `p` (empty when it cannot be read).
inline std::string contents(const std::filesystem::path& p) {
    std::ifstream f(p);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// An empty folder comet-test-<name> under the system's temporary folder, made anew.
inline std::filesystem::path fresh_folder(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("comet-test-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace comet_test
