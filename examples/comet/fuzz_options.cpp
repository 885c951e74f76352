// A libFuzzer target for the comet program's command line: the input's lines are the words of
// `comet <line 1> <line 2> ...`, read by parse_command_line (options.hpp) and, when that takes
// them, the threads transport's --set settings by threads_options (launch_threads.hpp). A
// mistake must come back as usage_error; anything else escaping (another exception, a
// sanitizer report, an abort) is a finding.
//
//   clang++ -fsanitize=fuzzer,address,undefined ...   (scripts/test.sh builds and runs it:
//   fuzz_options -dict=fuzz_options.dict -max_total_time=30 fuzz_seeds/)
#include "launch_threads.hpp"
#include "options.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> words{"comet"};
    std::string word;
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == '\n') {
            words.push_back(word);
            word.clear();
        } else {
            word += static_cast<char>(data[i]);
        }
    }
    if (!word.empty()) words.push_back(word);
    if (words.size() > 1 && words[1] == "compare") return 0;  // main hands these to compare
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    try {
        const comet_program::settings s = comet_program::parse_command_line(static_cast<int>(words.size()), argv.data());
        if (s.transport == "threads") (void)comet_program::threads_options(s);
    } catch (const comet_program::usage_error&) {
    }
    return 0;
}
