// held_out_11.cpp — the eleventh, blind held-out evaluation of comet's transport conformance suite
// (adapted from the eighth set's driver): how many of the deliberately broken transports of
// defects.hpp does the suite catch, and does it ever hang?
//
//   held_out_11_conformance [--timeout SECONDS] [--jobs N] [--only NAME,NAME...] [--list] [--witnesses]
//
// Each row (the two correct transports, then every mutant) runs the whole suite in a child
// process of its own (this program, executed again with `--child ROW`), because a mutant may
// leave ranks blocked forever under a runner without deadlock detection, or crash. The parent
// kills a child at the time limit and prints one table row per mutant:
//   caught   the suite failed it: the check, the exception's type and its first line
//            (or its watchdog ended the run, naming the call that never returned)
//   missed   the suite passed it
//   hung     still running at the time limit: killed, and the check it was in
//   crashed  the child died of a signal (or exited without a verdict)
// and the summary "caught X of N (Y%), hung H". The correct transports must pass; the program
// exits with 1 when one does not, 0 otherwise whatever the catch rate (the rate is the finding).
//
// `--witnesses` runs the scenarios of witnesses_11.hpp in place of the suite, the same way: the
// proof that each mutant is really broken. There every mutant should be caught (or hang, where
// a deadlock is the defect's only symptom: counted as "caught (hang)"), and the correct
// transports must pass; the program exits with 1 when a mutant passes them.
#include "defects.hpp"
#include "mailbox.hpp"
#include "runner.hpp"
#include "suite.hpp"
#include "witnesses_11.hpp"

#include <comet/testing/checks.hpp>

#include <cxxabi.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

using held_out_11::model;
using held_out_11::mutants;

constexpr std::size_t row_count = std::size(mutants);

std::string one_line(std::string s, std::size_t limit = 160) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\t', ' ');
    std::replace(s.begin(), s.end(), '|', '/');
    if (s.size() > limit) s = s.substr(0, limit - 3) + "...";
    return s;
}

std::string demangled(const std::type_info& type) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
    return status == 0 && name ? name.get() : type.name();
}

// ---- the child: one row, the whole suite, a verdict on stdout --------------------------------
// Its protocol, one line each: "check NAME" as each check starts, then "passed" or
// "caught TYPE<tab>MESSAGE".

void say(const std::string& line) {
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
}

int run_child(std::size_t row, bool witnesses) {
    const held_out_11::mutant& m = mutants[row];
    const auto starting = [](std::string_view name) { say("check " + std::string(name)); };
    // The suite is called through its one public entry point, `all()`; which check failed is in
    // its message (or the watchdog's line).
    const held_out_11::runner<held_out_11::endpoint> core{m.id};
    const held_out_11::runner<held_out_11::full_endpoint> full{m.id};
    try {
        if (witnesses && m.on == model::core)
            held_out_11::witness::run_witnesses<false>(core, starting, m.name);
        else if (witnesses)
            held_out_11::witness::run_witnesses<true>(full, starting, m.name);
        else if (m.on == model::core)
            starting("all"), held_out_11::run_suite(core);
        else
            starting("all"), held_out_11::run_suite(full);
        say("passed");
    } catch (const std::exception& e) {
        say("caught " + demangled(typeid(e)) + "\t" + one_line(e.what(), 400));
    } catch (...) {
        say("caught unknown exception\t");
    }
    return 0;
}

// ---- the parent: children with a time limit, then the table --------------------------------

enum class outcome { passed, caught, hung, crashed };

struct result {
    outcome what = outcome::crashed;
    std::string check;   ///< the check running at the end
    std::string detail;  ///< what caught it, or how it died
};

struct child {
    std::size_t row;
    pid_t pid;
    int fd;
    std::chrono::steady_clock::time_point deadline;
    std::string output;
};

child spawn(const char* self, std::size_t row, double timeout, bool witnesses) {
    int fds[2];
    if (pipe(fds) != 0) std::perror("pipe"), std::exit(2);
    const pid_t pid = fork();
    if (pid < 0) std::perror("fork"), std::exit(2);
    if (pid == 0) {
        // stderr too: the suite's watchdog says there, in one line, which call never returned.
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        const std::string index = std::to_string(row);
        const char* mode = witnesses ? "--witnesses" : static_cast<char*>(nullptr);
        execl("/proc/self/exe", self, "--child", index.c_str(), mode, static_cast<char*>(nullptr));
        execl(self, self, "--child", index.c_str(), mode, static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    return {row, pid, fds[0],
            std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout)),
            {}};
}

result verdict(const child& c, int wait_status, bool killed, double timeout) {
    result r;
    std::istringstream lines(c.output);
    std::string line;
    bool decided = false;
    while (std::getline(lines, line)) {
        if (line.rfind("check ", 0) == 0) r.check = line.substr(6);
        if (line == "passed") r.what = outcome::passed, decided = true;
        // A call into the transport that never returned, ended by the suite's watchdog with one
        // line naming the check, the rank and the call, and a failing exit: the suite caught it.
        if (line.rfind("comet conformance watchdog: ", 0) == 0 && !decided) {
            r.what = outcome::caught, decided = true;
            r.detail = "watchdog: " + line.substr(28);
        }
        if (line.rfind("caught ", 0) == 0) {
            r.what = outcome::caught, decided = true;
            const std::string rest = line.substr(7);
            const auto tab = rest.find('\t');
            r.detail = rest.substr(0, tab) + ": " + (tab == std::string::npos ? "" : rest.substr(tab + 1));
        }
    }
    if (killed) {
        r.what = outcome::hung;
        r.detail = "killed at the " + std::to_string(static_cast<int>(timeout)) + " s limit";
    } else if (WIFSIGNALED(wait_status)) {
        r.what = outcome::crashed;
        r.detail = std::string("signal ") + std::to_string(WTERMSIG(wait_status)) + " (" + strsignal(WTERMSIG(wait_status)) + ")";
    } else if (!decided) {
        r.what = outcome::crashed;
        r.detail = "exited with " + std::to_string(WEXITSTATUS(wait_status)) + " and no verdict";
    }
    return r;
}

/// Runs `rows`, at most `jobs` at a time, each for at most `timeout` seconds.
std::vector<result> run_rows(const char* self, const std::vector<std::size_t>& rows, int jobs, double timeout, bool witnesses) {
    std::vector<result> results(row_count);
    std::vector<child> running;
    std::size_t next = 0;
    while (next < rows.size() || !running.empty()) {
        while (next < rows.size() && static_cast<int>(running.size()) < jobs) running.push_back(spawn(self, rows[next++], timeout, witnesses));
        std::vector<pollfd> fds;
        auto wake = running.front().deadline;
        for (const child& c : running) {
            fds.push_back({c.fd, POLLIN, 0});
            wake = std::min(wake, c.deadline);
        }
        const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - std::chrono::steady_clock::now()).count();
        poll(fds.data(), fds.size(), static_cast<int>(std::clamp<long long>(wait_ms + 1, 0, 1000)));
        for (std::size_t i = running.size(); i-- > 0;) {
            child& c = running[i];
            bool finished = false, killed = false;
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char buffer[4096];
                const ssize_t n = read(c.fd, buffer, sizeof buffer);
                if (n > 0)
                    c.output.append(buffer, static_cast<std::size_t>(n));
                else
                    finished = true;
            }
            if (!finished && std::chrono::steady_clock::now() >= c.deadline) {
                kill(c.pid, SIGKILL);
                finished = killed = true;
            }
            if (!finished) continue;
            int status = 0;
            waitpid(c.pid, &status, 0);
            close(c.fd);
            results[c.row] = verdict(c, status, killed, timeout);
            const result& r = results[c.row];
            std::fprintf(stderr, "  %-30s %s\n", std::string(mutants[c.row].name).c_str(),
                         r.what == outcome::passed ? "passed" : r.what == outcome::caught ? "caught" : r.what == outcome::hung ? "hung" : "crashed");
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
    return results;
}

const char* usage =
    "usage: held_out_11_conformance [--timeout SECONDS] [--jobs N] [--only NAME,NAME...] [--list] [--witnesses]\n"
    "Runs comet's conformance suite against a correct transport and each held-out mutant,\n"
    "each in a child process killed after SECONDS (default 60), N at a time (default 1).\n"
    "--witnesses runs the scenarios that prove each mutant broken, in place of the suite.\n";

}  // namespace

int main(int argc, char** argv) {
    double timeout = 60;
    int jobs = 1;
    std::string only;
    bool witnesses = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--child" && has_value) {
            const auto row = static_cast<std::size_t>(std::stoul(argv[++i])) % row_count;
            return run_child(row, i + 1 < argc && std::string(argv[i + 1]) == "--witnesses");
        }
        if (a == "--witnesses")
            witnesses = true;
        else if (a == "--timeout" && has_value)
            timeout = std::stod(argv[++i]);
        else if (a == "--jobs" && has_value)
            jobs = std::max(1, std::stoi(argv[++i]));
        else if (a == "--only" && has_value)
            only = "," + std::string(argv[++i]) + ",";
        else if (a == "--list") {
            for (const auto& m : mutants)
                std::printf("%-30s %-4s %s\n", std::string(m.name).c_str(), m.on == model::core ? "core" : "full", std::string(m.rule).c_str());
            return 0;
        } else {
            std::fputs(usage, stderr);
            return 2;
        }
    }

    std::vector<std::size_t> rows;
    for (std::size_t r = 0; r < row_count; ++r)
        if (only.empty() || held_out_11::is_base(mutants[r]) || only.find("," + std::string(mutants[r].name) + ",") != std::string::npos)
            rows.push_back(r);
    std::fprintf(stderr, "running %s on %zu rows, %d at a time, %g s limit each\n", witnesses ? "the witnesses" : "the suite",
                 rows.size(), jobs, timeout);
    const std::vector<result> results = run_rows(argv[0], rows, jobs, timeout, witnesses);

    std::printf("| mutant | model | rule broken | result |\n|---|---|---|---|\n");
    int n = 0, caught = 0, hung = 0, crashed = 0, missed = 0;
    bool base_ok = true;
    for (std::size_t r : rows) {
        const held_out_11::mutant& m = mutants[r];
        const result& x = results[r];
        std::string shown;
        switch (x.what) {
        case outcome::passed: shown = held_out_11::is_base(m) ? "passed (correct transport)" : "missed: passed"; break;
        case outcome::caught: shown = "caught by " + x.check + ": " + one_line(x.detail); break;
        case outcome::hung: shown = (witnesses && !held_out_11::is_base(m) ? "caught (hang) in " : "hung in ") + x.check + ": " + x.detail; break;
        case outcome::crashed: shown = "crashed in " + x.check + ": " + x.detail; break;
        }
        std::printf("| %s | %s | %s | %s |\n", std::string(m.name).c_str(), m.on == model::core ? "core" : "full",
                    std::string(m.rule).c_str(), shown.c_str());
        if (held_out_11::is_base(m)) {
            base_ok = base_ok && x.what == outcome::passed;
            continue;
        }
        ++n;
        // For the witnesses a hang is the defect shown (a deadlock that is its only symptom).
        caught += x.what == outcome::caught || (witnesses && x.what == outcome::hung);
        hung += x.what == outcome::hung;
        crashed += x.what == outcome::crashed;
        missed += x.what == outcome::passed;
    }
    std::printf("\n%s: caught %d of %d (%.0f%%), hung %d, crashed %d, missed %d\n", witnesses ? "witnesses" : "suite", caught, n,
                n ? 100.0 * caught / n : 0.0, hung, crashed, missed);
    if (!base_ok) std::printf("THE CORRECT TRANSPORT FAILED: the numbers above mean nothing until it passes\n");
    // A mutant the witnesses pass is one whose defect changes nothing visible: the suite could
    // not be blamed for missing it, so the set is broken until it is fixed or dropped.
    if (witnesses && missed > 0) std::printf("A MUTANT PASSED THE WITNESSES: it does not prove its defect\n");
    return base_ok && !(witnesses && missed > 0) ? 0 : 1;
}
