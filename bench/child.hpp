// bench/child.hpp — a run measured in a child process of its own: its host seconds and its own
// peak memory (the simulators' scale benchmarks: the parent's earlier runs do not count).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace bench {

struct child_result {
    double seconds = 0;
    double max_rss_mib = 0;
    double value = 0;
};

/// Runs `body` (returning a double) in a child process: host seconds, the child's own peak
/// memory, and what it returned.
template <class Body>
child_result in_child(Body body) {
    int fd[2];
    if (pipe(fd) != 0) std::exit(1);
    const pid_t child = fork();
    if (child == 0) {
        close(fd[0]);
        child_result r;
        const auto t0 = std::chrono::steady_clock::now();
        r.value = body();
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (write(fd[1], &r, sizeof r) != static_cast<ssize_t>(sizeof r)) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    child_result r;
    const bool got = read(fd[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    close(fd[0]);
    int status = 0;
    rusage u{};
    wait4(child, &status, 0, &u);
    if (!got) {
        std::printf("  a child run failed (status %d)\n", status);
        return {};
    }
    r.max_rss_mib = static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
    return r;
}

}  // namespace bench
