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
#pragma once

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <cstddef>
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

/// The fibers of one run, indexed by rank, and the scheduler's side of every switch.
class fiber_set {
public:
    /// `count` fibers (none started yet), each with a stack of `stack_size` bytes plus a guard
    /// page that turns an overflow into a crash instead of silent corruption.
    fiber_set(int count, std::size_t stack_size) : slots_(static_cast<std::size_t>(count)), stack_size_(stack_size) {
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
        s.ctx = boost::context::fiber(std::allocator_arg, recording_stack{boost::context::protected_fixedsize_stack(stack_size_), &s},
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

    bool finished(int i) const noexcept { return slots_[static_cast<std::size_t>(i)].finished; }
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

    /// The protected stack allocator, recording where each stack lies (for ASan).
    struct recording_stack {
        boost::context::protected_fixedsize_stack inner;
        slot* owner;
        boost::context::stack_context allocate() {
            auto sc = inner.allocate();
            owner->bottom = static_cast<const char*>(sc.sp) - sc.size;
            owner->size = sc.size;
            clear_shadow(sc);
            return sc;
        }
        void deallocate(boost::context::stack_context& sc) noexcept {
            clear_shadow(sc);
            inner.deallocate(sc);
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

    std::vector<slot> slots_;  // never resized: stacks and fibers point into it
    std::size_t stack_size_;
    boost::context::fiber scheduler_;  ///< the scheduler's continuation while a fiber runs
    int running_ = -1;
    void* main_fake_ = nullptr;
    const void* main_bottom_ = nullptr;
    std::size_t main_size_ = 0;
    void* main_tsan_ = nullptr;
};

}  // namespace comet::nx2::detail
