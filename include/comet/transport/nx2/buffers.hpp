// comet/transport/nx2/buffers.hpp — NX/2's system buffers as the simulator holds them: the bytes
// of a message no receive has taken yet, and the pool that recycles them.
//
// The simulator moves the real bytes (a receive gets what was sent), so a system buffer is real
// memory; what it costs in virtual time is the protocol's business (kernel.hpp), not this header's.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace comet::nx2::detail {

/// A system buffer's bytes: NX/2's buffer for a message no receive has taken yet.
struct system_buffer {
    std::unique_ptr<std::byte[]> bytes;
    std::size_t size = 0;
    std::size_t capacity = 0;
    std::byte* data() noexcept { return bytes.get(); }
    const std::byte* data() const noexcept { return bytes.get(); }
};

/// Recycles system buffers by size class (powers of two) and never zero-fills them. Why: the
/// simulator moves the real bytes, and a fresh allocation of a few hundred kilobytes per long
/// message (mmap, page faults, zeroing) cost more host time than all the rest of the model. At
/// most `max_retained` bytes are kept for reuse.
class buffer_pool {
public:
    static constexpr std::size_t max_retained = std::size_t{256} << 20;

    /// A buffer of at least `n` bytes (contents undefined), `size` set to `n`.
    void get(system_buffer& b, std::size_t n) {
        put(b);
        if (n == 0) return;
        const auto k = static_cast<std::size_t>(std::bit_width(std::max<std::size_t>(n, 64) - 1));
        auto& shelf = free_[k];
        if (!shelf.empty()) {
            b.bytes = std::move(shelf.back());
            shelf.pop_back();
            retained_ -= std::size_t{1} << k;
        } else {
            b.bytes = std::make_unique_for_overwrite<std::byte[]>(std::size_t{1} << k);
        }
        b.capacity = std::size_t{1} << k;
        b.size = n;
    }

    /// Takes `b`'s bytes back (leaving it empty).
    void put(system_buffer& b) {
        if (b.bytes && retained_ + b.capacity <= max_retained) {
            retained_ += b.capacity;
            free_[static_cast<std::size_t>(std::countr_zero(b.capacity))].push_back(std::move(b.bytes));
        }
        b.bytes.reset();
        b.size = b.capacity = 0;
    }

private:
    std::vector<std::unique_ptr<std::byte[]>> free_[64];
    std::size_t retained_ = 0;
};

}  // namespace comet::nx2::detail
