// comet/testing/checks/capabilities.hpp — the conformance check of the optional capabilities a
// type claims (core/concepts.hpp), each against its definition: issend and ssend complete only
// once matched, rsend and irsend into posted receives, bsend, sendrecv (its status is its
// receive's), progress() taking nothing, and the nonblocking collectives
// (checks/nonblocking_collectives.hpp).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/ops/ops.hpp>
#include <comet/testing/checks/matching.hpp>
#include <comet/testing/checks/nonblocking_collectives.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace comet::testing::checks {

/// The optional capabilities the type claims, each against its definition.
template <class Runner>
void capabilities(const Runner& run, const limits& l) {
    // Groups of 2, 3 and 5 (from 4 up a rank has a peer that is not its ring neighbour); once
    // per size a runner of one fixed size makes.
    std::vector<int> done;
    for (int wanted : {2, 3, 5}) {
    if (std::ranges::find(done, testing::detail::group_size(run, wanted)) != done.end()) continue;
    done.push_back(testing::detail::group_size(run, wanted));
    testing::detail::run_check(run, wanted, "capabilities", l, [](auto& t, session& s) {
        using T = std::remove_cvref_t<decltype(t)>;
        // Point to point between ranks 0 and 1; the collectives below on every rank.
        if (t.rank() <= 1) {
            const int peer = 1 - t.rank();
            std::vector<std::byte> in((1 << 20) + 8);
            if constexpr (synchronous_send_transport<T>) {
                // issend must stay incomplete until the receiver has posted its receive, which
                // rank 1 does only after rank 0 tells it (with a later message) to go ahead.
                if (t.rank() == 0) {
                    const auto out = detail::pattern(64, 41);  // must outlive the request
                    auto r = s.call("issend", [&] { return t.issend(peer, 41, out); });
                    s.for_a_while(std::chrono::milliseconds(50), [&] {
                        s.expect(!s.call("test", [&] { return t.test(r); }).has_value(),
                                 "issend completed before the receive was posted (its message only probed)");
                    });
                    s.send(t, peer, 42, detail::pattern(1, 42));
                    s.expect_status(s.wait_send(t, r, peer, 41), peer, 41, 64, "the completed issend's status");
                    // ssend returns only once its receive is posted; then rank 0 says so (tag 44).
                    s.call("ssend", [&] { t.ssend(peer, 43, detail::pattern(5000, 43)); });
                    s.send(t, peer, 44, const_bytes{});
                    // wait_all of an issend returns only once its receive is posted (tag 46 says so).
                    typename T::request w[1] = {s.call("issend", [&] { return t.issend(peer, 45, out); })};
                    s.call("ops::wait_all", [&] { ops::wait_all(t, std::span<typename T::request>(w, 1)); });
                    s.send(t, peer, 46, const_bytes{});
                    s.send(t, peer, 49, const_bytes{});
                } else {
                    // A receive of another tag stays posted throughout: it matches none of these.
                    auto other = s.call("irecv", [&] { return t.irecv(peer, 49, mutable_bytes{}); });
                    s.probe(t, peer, 41);  // a probe is not a match: the issend stays incomplete
                    s.recv(t, peer, 42, in);
                    // Received with any_tag: the completed issend's status still names its own tag.
                    s.expect_status(s.recv(t, peer, any_tag, in), peer, 41, 64, "issend message, received with any_tag");
                    s.expect_pattern(in, 64, 41, "issend message");
                    // Rank 0 is in ssend now, or soon: its word that ssend returned must not come
                    // before this rank posts the receive (a returned ssend's word takes
                    // microseconds; 100 ms of silence on a busy machine can only miss one).
                    s.for_a_while(std::chrono::milliseconds(100), [&] {
                        s.expect(!s.iprobe(t, peer, 44).has_value(), "ssend returned before its receive was posted");
                    });
                    s.expect_status(s.recv(t, any_source, 43, in), peer, 43, 5000, "ssend message, received with any_source");
                    s.recv(t, peer, 44, mutable_bytes{});
                    s.for_a_while(std::chrono::milliseconds(100), [&] {
                        s.expect(!s.iprobe(t, peer, 46).has_value(), "wait_all of an issend returned before its receive was posted");
                    });
                    s.expect_status(s.recv(t, peer, 45, in), peer, 45, 64, "the issend completed by wait_all");
                    s.recv(t, peer, 46, mutable_bytes{});
                    s.wait_recv(t, other, peer, 49);
                }
            }
            if constexpr (ready_send_transport<T>) {
                // rsend and irsend into a receive posted naming the sender or any_source, with the
                // tag or any_tag.
                for (int form = 0; form < 8; ++form)
                    for (std::size_t n : {std::size_t{16}, std::size_t{1} << 20}) {
                        const bool wild = form % 2 == 1, nonblocking = form % 4 >= 2, wild_tag = form >= 4;
                        const std::string what = std::string(nonblocking ? "irsend" : "rsend") + " message into " +
                                                 (wild ? "an any_source receive" : "a receive naming its sender") +
                                                 (wild_tag ? " with any_tag" : "");
                        if (t.rank() == 1) {
                            auto r = s.call("irecv", [&] { return t.irecv(wild ? any_source : peer, wild_tag ? any_tag : 51, in); });
                            s.send(t, peer, 52, detail::pattern(1, 52));  // "posted"
                            s.expect_status(s.wait_recv(t, r, peer, 51), peer, 51, n, what);
                            s.expect_pattern(in, n, 51, what);
                        } else {
                            s.recv(t, peer, 52, in);
                            const auto out = detail::pattern(n, 51);
                            if (nonblocking) {
                                auto r = s.call("irsend", [&] { return t.irsend(peer, 51, out); });
                                s.expect_status(s.wait_send(t, r, peer, 51), peer, 51, n, "the completed irsend's status");
                            } else {
                                s.call("rsend", [&] { t.rsend(peer, 51, out); });
                            }
                        }
                    }
                // A ready message longer than the posted receive raises truncation_error there.
                if (t.rank() == 1) {
                    std::vector<std::byte> small(8);
                    auto r = s.call("irecv", [&] { return t.irecv(peer, 54, small); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    s.expect_throw<truncation_error>([&] { s.wait_recv(t, r, peer, 54); }, {"16"}, "a 16-byte rsend message into an 8-byte receive");
                } else {
                    s.recv(t, peer, 52, in);
                    s.call("rsend", [&] { t.rsend(peer, 54, detail::pattern(16, 54)); });
                }
                // Receives posted for other tags (naming the sender, then any_source) are passed
                // over: ready messages sent in the reverse order each go to their own tag's receive.
                if (t.rank() == 1) {
                    std::vector<std::vector<std::byte>> three{std::vector<std::byte>(64), std::vector<std::byte>(64), std::vector<std::byte>(64)};
                    auto r55 = s.call("irecv", [&] { return t.irecv(peer, 55, three[0]); });
                    auto r56 = s.call("irecv", [&] { return t.irecv(any_source, 56, three[1]); });
                    auto r57 = s.call("irecv", [&] { return t.irecv(peer, 57, three[2]); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    for (int tag = 57; tag >= 55; --tag) {
                        auto& r = tag == 55 ? r55 : tag == 56 ? r56 : r57;
                        const auto& got = three[static_cast<std::size_t>(tag - 55)];
                        const std::string what = "a ready message of tag " + std::to_string(tag) + " sent while receives of tags 55, 56 (any_source) and 57 were posted";
                        s.expect_status(s.wait_recv(t, r, tag == 56 ? any_source : peer, tag), peer, tag, 24 + static_cast<std::size_t>(tag - 55), what);
                        s.expect_pattern(std::span(got).first(24 + static_cast<std::size_t>(tag - 55)), 24 + static_cast<std::size_t>(tag - 55),
                                         static_cast<std::uint32_t>(tag), what);
                    }
                } else {
                    s.recv(t, peer, 52, in);
                    for (int tag = 57; tag >= 55; --tag) {
                        const auto out = detail::pattern(24 + static_cast<std::size_t>(tag - 55), static_cast<std::uint32_t>(tag));
                        s.call("rsend", [&] { t.rsend(peer, tag, out); });
                    }
                }
                // Two receives posted for one tag take two ready messages in the order posted.
                if (t.rank() == 1) {
                    std::vector<std::vector<std::byte>> two{std::vector<std::byte>(64), std::vector<std::byte>(32)};
                    auto r0 = s.call("irecv", [&] { return t.irecv(peer, 53, two[0]); });
                    auto r1 = s.call("irecv", [&] { return t.irecv(any_source, 53, two[1]); });
                    s.send(t, peer, 52, detail::pattern(1, 52));
                    s.wait_recv(t, r0, peer, 53);
                    s.wait_recv(t, r1, any_source, 53);
                    s.expect(detail::number_of(two[0]) == 0 && detail::number_of(two[1]) == 1, "two receives posted for tag 53 took ready messages ",
                             detail::number_of(two[0]), " and ", detail::number_of(two[1]), ", expected 0 and 1 (the order posted)");
                } else {
                    s.recv(t, peer, 52, in);
                    for (std::uint32_t k = 0; k < 2; ++k) {
                        const auto out = detail::numbered(16, k, 53);
                        s.call("rsend", [&] { t.rsend(peer, 53, out); });
                    }
                }
            }
            if constexpr (buffered_send_transport<T>) {
                s.call("bsend", [&] { t.bsend(peer, 61, detail::pattern(1 << 20, 61 + static_cast<std::uint32_t>(t.rank()))); });
                s.expect_status(s.recv(t, peer, 61, in), peer, 61, std::size_t{1} << 20, "bsend exchange");
                s.expect_pattern(in, 1 << 20, 61 + static_cast<std::uint32_t>(peer), "bsend exchange");
            }
            if constexpr (sendrecv_transport<T>) {
                // Each rank sends its own tag and size, so that the status (the receive's) cannot
                // be mistaken for the send's.
                // A message of another tag sent first must be left for its own receive.
                for (std::size_t n : {std::size_t{8}, std::size_t{1} << 20}) {
                    const auto mine = static_cast<std::size_t>(t.rank()), theirs = static_cast<std::size_t>(peer);
                    auto out = detail::pattern(n + mine, 70 + static_cast<std::uint32_t>(t.rank()));
                    const auto decoy = detail::pattern(3, 75);
                    auto d = s.call("isend", [&] { return t.isend(peer, 75, const_bytes(decoy)); });
                    const status st = s.call("sendrecv", [&] {
                        return t.sendrecv(peer, 72 + t.rank(), out, peer, 72 + peer, std::span(in.data(), n + 1));
                    });
                    s.expect_status(st, peer, 72 + peer, n + theirs, "sendrecv (the status of its receive), a message of tag 75 sent before");
                    s.expect_pattern(in, n + theirs, 70 + static_cast<std::uint32_t>(peer), "sendrecv");
                    std::vector<std::byte> other(3);
                    s.expect_status(s.recv(t, peer, 75, other), peer, 75, 3, "the message of tag 75 sent before a sendrecv");
                    s.wait_send(t, d, peer, 75);
                    // any_tag: the status gives the tag the peer sent (not this call's send tag).
                    const status any = s.call("sendrecv", [&] {
                        return t.sendrecv(peer, 72 + t.rank(), out, peer, any_tag, std::span(in.data(), n + 1));
                    });
                    s.expect_status(any, peer, 72 + peer, n + theirs, "sendrecv with any_tag (the status of its receive)");
                    // any_source: the status names the sender. A longer message than the receive's
                    // buffer raises truncation_error.
                    const status wild = s.call("sendrecv", [&] { return t.sendrecv(peer, 77, out, any_source, 77, std::span(in.data(), n + 1)); });
                    s.expect_status(wild, peer, 77, n + theirs, "sendrecv from any_source (the status of its receive)");
                    s.expect_throw<truncation_error>(
                        [&] { s.call("sendrecv", [&] { (void)t.sendrecv(peer, 78, out, peer, 78, std::span(in.data(), n / 2)); }); },
                        {std::to_string(n + theirs)}, "sendrecv receiving a message longer than its buffer");
                    // With oneself as destination and source.
                    const auto self_out = detail::pattern(n, 76);
                    const status self_st = s.call("sendrecv", [&] { return t.sendrecv(t.rank(), 76, self_out, t.rank(), 76, std::span(in.data(), n)); });
                    s.expect_status(self_st, t.rank(), 76, n, "sendrecv with this rank itself");
                    s.expect_pattern(in, n, 76, "sendrecv with this rank itself");
                }
            }
            if constexpr (progress_transport<T>) {
                // progress() advances operations; it takes nothing: a message that arrived for no
                // receive yet is still there for one.
                const auto out = detail::pattern(100, 85);
                auto r = s.call("isend", [&] { return t.isend(peer, 85, const_bytes(out)); });
                s.probe(t, peer, 85);
                for (int n = 0; n < 20; ++n) s.call("progress", [&] { t.progress(); });
                s.expect_status(s.recv(t, peer, 85, in), peer, 85, 100, "a message that arrived before progress() was called");
                s.wait_send(t, r, peer, 85);
            }
        }
        if constexpr (sendrecv_transport<T>) {
            if (t.size() >= 3) {
                // A ring: send to the next rank, receive from any_source (the previous one sends):
                // the status names the sender, not this call's destination.
                const int next = (t.rank() + 1) % t.size(), prev = (t.rank() + t.size() - 1) % t.size();
                const auto out = detail::pattern(16, 79);
                std::vector<std::byte> got(16);
                const status st = s.call("sendrecv", [&] { return t.sendrecv(next, 79, out, any_source, 79, got); });
                s.expect_status(st, prev, 79, 16, "sendrecv to the next rank from any_source (the status of its receive)");
            }
        }
        if constexpr (nonblocking_collective_transport<T>) {
            detail::nonblocking_collectives(t, s);
        }
    });
    }
}

}  // namespace comet::testing::checks
