// comet/transport/threads/request.hpp — a nonblocking operation of the threads transport:
// a receive posted in the rank's inbox (inbox.hpp), or a large message offered to its receiver
// (handoff.hpp); a small send completes at once and keeps only its status. Move-only.
//
// Part of the threads transport (comet/transport/threads.hpp): the transport makes the requests.
#pragma once

#include <comet/core/types.hpp>
#include <comet/transport/threads/channel.hpp>
#include <comet/transport/threads/handoff.hpp>
#include <comet/transport/threads/inbox.hpp>

#include <utility>

namespace comet::threads {

class transport;

/// A nonblocking operation of the threads transport. Move-only. Destroying it while the
/// operation is pending cancels a receive, and turns a send into a buffered one (the data is
/// copied and still delivered).
class request {
public:
    request() = default;
    request(request&& o) noexcept { take(o); }
    request& operator=(request&& o) noexcept {
        if (this != &o) {
            release();
            take(o);
        }
        return *this;
    }
    request(const request&) = delete;
    request& operator=(const request&) = delete;
    ~request() { release(); }

    /// True while the operation has not been completed by wait or test.
    bool pending() const noexcept { return recv_ || send_; }

private:
    friend class transport;
    void take(request& o) noexcept {
        owner_ = std::exchange(o.owner_, nullptr);
        recv_ = std::exchange(o.recv_, nullptr);
        send_ = std::exchange(o.send_, nullptr);
        result_ = o.result_;
    }
    inline void release() noexcept;

    detail::inbox* owner_ = nullptr;  ///< the inbox of the rank that started it
    detail::recv_op* recv_ = nullptr;
    detail::large_message* send_ = nullptr;
    status result_;  ///< for a send: destination, tag and size
};

inline void request::release() noexcept {
    if (recv_) {
        if (!recv_->done) owner_->unlink(recv_);
        owner_->recycle(recv_);
        recv_ = nullptr;
    }
    if (send_) {
        // Still pending: keep the promise that the message is delivered, from a copy.
        detail::abandon(std::exchange(send_, nullptr), true);
    }
    owner_ = nullptr;
}

}  // namespace comet::threads
