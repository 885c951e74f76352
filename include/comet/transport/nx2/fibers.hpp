// comet/transport/nx2/fibers.hpp — the simulated nodes' processes: one Boost.Context fiber per
// rank on a small fixed-size stack, and the two switches the scheduler needs (run a fiber until
// it suspends; suspend back to the scheduler).
//
// Why fibers: a rank's code is the user's real C++ (a kernel, a test body) that blocks in
// `recv` or spends time in `compute`. Running it on user-space contexts that only the scheduler
// switches makes thousands of ranks cheap (one switch is a few nanoseconds; no OS thread, no
// kernel), and makes the order in which ranks run a function of virtual time alone.
//
// Sanitizers. Boost 1.74's fcontext fibers do not tell AddressSanitizer or ThreadSanitizer that
// the stack changed, so every switch here is annotated the documented way:
// `__sanitizer_start_switch_fiber` / `__sanitizer_finish_switch_fiber` (ASan learns the bounds of
// the stack it runs on, so exceptions thrown on a fiber unwind cleanly) and
// `__tsan_create_fiber` / `__tsan_switch_to_fiber` (TSan keeps a shadow stack per fiber). All
// fibers run on one OS thread, so TSan has no race to find; the annotations keep its bookkeeping
// right. A fiber's outermost frames never return (Boost leaves a finished fiber by a jump), so
// their redzones would stay poisoned in ASan's shadow after the stack is unmapped, and a later
// run's stack mapped at the same addresses would inherit them (a compiler's frame setup writes
// only its redzones and trusts the rest to be clean): every stack's shadow is cleared when it is
// mapped and before it is unmapped. The annotations compile only under the sanitizers.
//
// Stacks at scale. All stacks of a run are carved from one anonymous mapping (MAP_NORESERVE:
// only the pages a rank touches cost memory). A guard page below each stack turns an overflow
// into a crash instead of silent corruption, but each guard splits the mapping, two mappings
// per rank, and Linux allows a process vm.max_map_count of them (65,530 by default): guards are
// kept while 2 x ranks fit beside a reserve for the rest of the process, and left out beyond
// (`stacks_guarded`). A finished fiber's pages are handed back at once (MADV_DONTNEED).
#pragma once

#include <comet/core/errors.hpp>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define COMET_NX2_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COMET_NX2_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define COMET_NX2_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COMET_NX2_TSAN 1
#endif
#endif
#ifdef COMET_NX2_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef COMET_NX2_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace comet::nx2::detail {

/// The most memory mappings this process may hold (vm.max_map_count; 65,530 if unreadable).
inline long max_map_count() {
    std::ifstream in("/proc/sys/vm/max_map_count");
    long n = 0;
    return in >> n && n > 0 ? n : 65530;
}

/// Mappings kept free for the rest of the process (heap arenas, libraries, other runs).
inline constexpr long reserved_mappings = 16384;

/// The stacks of one run: one mapping of `count` slots, each a guard page (when affordable)
/// and `stack_size` bytes rounded up to pages; stacks grow down from the slot's top.
class stack_pool {
public:
    stack_pool(std::size_t count, std::size_t stack_size) {
        page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        usable_ = (stack_size + page_ - 1) / page_ * page_;
        guarded_ = 2 * static_cast<long>(count) + reserved_mappings <= max_map_count();
        slot_ = usable_ + (guarded_ ? page_ : 0);
        if (count > 0 && slot_ > std::numeric_limits<std::size_t>::max() / count)
            raise<invalid_argument>(-1, "nx2: ", count, " stacks of ", stack_size, " bytes exceed the address space");
        bytes_ = count * slot_;
        if (bytes_ == 0) return;
        void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            raise<error>(-1, "nx2: cannot map the stacks of ", count, " ranks (", usable_ / 1024, " KiB each, ", bytes_ >> 20,
                         " MiB of address space): ", std::strerror(errno));
        base_ = static_cast<char*>(p);
        if (guarded_)
            for (std::size_t i = 0; i < count; ++i)
                if (::mprotect(base_ + i * slot_, page_, PROT_NONE) != 0) {
                    const int e = errno;
                    ::munmap(base_, bytes_);
                    raise<error>(-1, "nx2: cannot protect the guard page of stack ", i, " of ", count, ": ", std::strerror(e));
                }
    }
    stack_pool(const stack_pool&) = delete;
    stack_pool& operator=(const stack_pool&) = delete;
    ~stack_pool() {
        if (base_) ::munmap(base_, bytes_);
    }

    /// Stack `i`: its top (where a stack growing down starts) and usable size.
    boost::context::stack_context stack(std::size_t i) const noexcept {
        boost::context::stack_context sc;
        sc.size = usable_;
        sc.sp = base_ + (i + 1) * slot_;
        return sc;
    }
    /// Hands the pages stack `i` touched back to the system; it reads as zeros if used again.
    void release(std::size_t i) const noexcept { ::madvise(base_ + (i + 1) * slot_ - usable_, usable_, MADV_DONTNEED); }

    bool guarded() const noexcept { return guarded_; }

private:
    std::size_t page_ = 4096, usable_ = 0, slot_ = 0, bytes_ = 0;
    bool guarded_ = true;
    char* base_ = nullptr;
};

/// The fibers of one run, indexed by rank, and the scheduler's side of every switch.
class fiber_set {
public:
    /// `count` fibers (none started yet), each with a stack of `stack_size` bytes (plus a guard
    /// page where affordable: see the header comment) from one pool.
    fiber_set(int count, std::size_t stack_size)
        : stacks_(static_cast<std::size_t>(count), stack_size), slots_(static_cast<std::size_t>(count)) {
#ifdef COMET_NX2_TSAN
        main_tsan_ = __tsan_get_current_fiber();
#endif
    }
    fiber_set(const fiber_set&) = delete;
    fiber_set& operator=(const fiber_set&) = delete;
    ~fiber_set() {
#ifdef COMET_NX2_TSAN
        for (auto& s : slots_)
            if (s.tsan) __tsan_destroy_fiber(s.tsan);
#endif
    }

    /// Creates fiber `i`, which runs `body()` when first resumed. `body` must not throw.
    template <class Body>
    void spawn(int i, Body body) {
        slot& s = slots_[static_cast<std::size_t>(i)];
#ifdef COMET_NX2_TSAN
        s.tsan = __tsan_create_fiber(0);
        // Constructing a Boost fiber jumps onto its stack and back once; let TSan book that on
        // the new fiber, not on the scheduler's shadow stack.
        __tsan_switch_to_fiber(s.tsan, 0);
#endif
        s.ctx = boost::context::fiber(std::allocator_arg, pooled_stack{&stacks_, static_cast<std::size_t>(i), &s},
                                      [this, i, body = std::move(body)](boost::context::fiber&& sched) mutable {
                                          scheduler_ = std::move(sched);
                                          arrived(nullptr);
                                          body();
                                          slots_[static_cast<std::size_t>(i)].finished = true;
                                          leaving(nullptr);
                                          return std::move(scheduler_);
                                      });
#ifdef COMET_NX2_TSAN
        __tsan_switch_to_fiber(main_tsan_, 0);
#endif
    }

    /// From the scheduler: runs fiber `i` until it suspends or ends.
    void resume(int i) {
        slot& s = slots_[static_cast<std::size_t>(i)];
        running_ = i;
#ifdef COMET_NX2_ASAN
        __sanitizer_start_switch_fiber(&main_fake_, s.bottom, s.size);
#endif
#ifdef COMET_NX2_TSAN
        __tsan_switch_to_fiber(s.tsan, 0);
#endif
        s.ctx = std::move(s.ctx).resume();
#ifdef COMET_NX2_ASAN
        __sanitizer_finish_switch_fiber(main_fake_, nullptr, nullptr);
#endif
        running_ = -1;
    }

    /// From the running fiber: back to the scheduler, until it resumes this fiber again.
    void suspend() {
        slot& s = slots_[static_cast<std::size_t>(running_)];
        leaving(&s.fake);
        scheduler_ = std::move(scheduler_).resume();
        arrived(s.fake);
    }

    /// From the scheduler: unwinds every fiber that has not finished (its frames' destructors
    /// run on its stack), as destroying the set would, but at a time the caller chooses.
    void unwind() noexcept {
        for (auto& s : slots_) s.ctx = boost::context::fiber{};
    }

    bool finished(int i) const noexcept { return slots_[static_cast<std::size_t>(i)].finished; }
    /// Whether every stack has a guard page below it.
    bool stacks_guarded() const noexcept { return stacks_.guarded(); }
    /// The fiber running now, or -1 when the scheduler runs.
    int running() const noexcept { return running_; }

private:
    struct slot {
        boost::context::fiber ctx;
        bool finished = false;
        const void* bottom = nullptr;  ///< the lowest address of the fiber's stack (ASan)
        std::size_t size = 0;
        void* fake = nullptr;          ///< ASan's fake stack of this fiber while suspended
        void* tsan = nullptr;          ///< TSan's state of this fiber
    };

    /// Boost's stack allocator over the pool: hands out stack `index`, records where it lies
    /// (for ASan), and releases its pages when the fiber is destroyed.
    struct pooled_stack {
        const stack_pool* pool;
        std::size_t index;
        slot* owner;
        boost::context::stack_context allocate() {
            auto sc = pool->stack(index);
            owner->bottom = static_cast<const char*>(sc.sp) - sc.size;
            owner->size = sc.size;
            clear_shadow(sc);
            return sc;
        }
        void deallocate(boost::context::stack_context& sc) noexcept {
            clear_shadow(sc);
            pool->release(index);
        }
        static void clear_shadow([[maybe_unused]] const boost::context::stack_context& sc) noexcept {
#ifdef COMET_NX2_ASAN
            __asan_unpoison_memory_region(static_cast<const char*>(sc.sp) - sc.size, sc.size);
#endif
        }
    };

    /// First thing on a stack after a switch to it.
    void arrived([[maybe_unused]] void* fake) {
#ifdef COMET_NX2_ASAN
        __sanitizer_finish_switch_fiber(fake, &main_bottom_, &main_size_);
#endif
    }
    /// Last thing on a fiber's stack before switching to the scheduler; `fake` is null when
    /// the fiber ends (ASan then drops its fake stack).
    void leaving([[maybe_unused]] void** fake) {
#ifdef COMET_NX2_ASAN
        __sanitizer_start_switch_fiber(fake, main_bottom_, main_size_);
#endif
#ifdef COMET_NX2_TSAN
        __tsan_switch_to_fiber(main_tsan_, 0);
#endif
    }

    stack_pool stacks_;        // before the slots: outlives the fibers whose stacks it holds
    std::vector<slot> slots_;  // never resized: stacks and fibers point into it
    boost::context::fiber scheduler_;  ///< the scheduler's continuation while a fiber runs
    int running_ = -1;
    void* main_fake_ = nullptr;
    const void* main_bottom_ = nullptr;
    std::size_t main_size_ = 0;
    void* main_tsan_ = nullptr;
};

}  // namespace comet::nx2::detail
