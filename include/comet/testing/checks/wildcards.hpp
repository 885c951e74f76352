// comet/testing/checks/wildcards.hpp — the conformance checks of wildcard receives
// (core/concepts.hpp, "Matching"): any_source and any_tag take a message from whoever sent one,
// the earliest queued first, and wildcard receives posted beside named ones are matched in the
// order all of them were posted.
//
// A receive with both any_source and any_tag runs on rank 0 only: the closing barrier
// (session.hpp) lets no rank send anything before rank 0 has finished, so such a receive can
// never take the suite's own messages.
#pragma once

#include <comet/testing/checks/matching.hpp>

#include <vector>

namespace comet::testing::checks {

/// any_source takes a message from whoever sent one, and the status says who.
template <class Runner>
void any_source_matching(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 4, "any_source_matching", l, [](auto& t, session& s) {
        const int p = t.size();
        if (t.rank() != 0) {
            const auto m = detail::pattern(static_cast<std::size_t>(t.rank()) * 1000, static_cast<std::uint32_t>(t.rank()));
            s.send(t, 0, 100 + t.rank(), m);
            return;
        }
        std::vector<int> seen(static_cast<std::size_t>(p), 0);
        std::vector<std::byte> in(static_cast<std::size_t>(p) * 1000);
        for (int i = 1; i < p; ++i) {
            const status st = s.recv(t, any_source, any_tag, in);
            s.expect(st.source >= 1 && st.source < p && st.tag == 100 + st.source && st.size == static_cast<std::size_t>(st.source) * 1000,
                     "any_source status {", st.source, ", ", st.tag, ", ", st.size, "}");
            s.expect_pattern(in, st.size, static_cast<std::uint32_t>(st.source), "any_source message");
            ++seen[static_cast<std::size_t>(st.source)];
        }
        for (int r = 1; r < p; ++r)
            s.expect(seen[static_cast<std::size_t>(r)] == 1, "rank ", r, " was received ", seen[static_cast<std::size_t>(r)], " times");
    });
}

/// With several matching messages queued, a wildcard receive takes the earliest: any_tag the
/// first one its source sent; any_source the first to arrive (arrivals here are put in the
/// order 2, 1, 3 by waiting for each, so neither the lowest nor the highest rank comes first).
template <class Runner>
void wildcard_earliest(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 4, "wildcard_earliest", l, [](auto& t, session& s) {
        const int p = t.size();
        std::vector<std::byte> in(5000);
        // any_tag: rank 0 sends tags 5, 3, 9; rank 1 waits until all three are queued.
        const int tags[] = {5, 3, 9};
        const std::size_t sizes[] = {8, 5000, 16};
        if (t.rank() == 0) {
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < 3; ++i) m.push_back(detail::numbered(sizes[i], static_cast<std::uint32_t>(i), 50));
            auto rs = detail::isend_all(t, s, 1, m, [&](std::size_t i) { return tags[i]; });
            detail::wait_sends(t, s, rs, 1, [&](std::size_t i) { return tags[i]; });
        } else if (t.rank() == 1) {
            for (int tag : tags) s.probe(t, 0, tag);
            s.expect_status(s.probe(t, 0, any_tag), 0, 5, 8, "iprobe(0, any_tag) with tags 5, 3, 9 queued");
            for (std::size_t i = 0; i < 3; ++i)
                s.expect_status(s.recv(t, 0, any_tag, in), 0, tags[i], sizes[i], "recv(0, any_tag) with tags 5, 3, 9 queued");
        }
        if (p < 3) return;
        // any_source: ranks 2, 1, 3 send to rank 0 one after the other, each on rank 0's word once
        // the previous one is queued; first with one tag, then each with its own (any_tag too).
        const int order[] = {2, 1, 3};
        const int senders = p >= 4 ? 3 : 2;
        for (int round = 0; round < 2; ++round) {
            const auto tag_of = [round](int r) { return round == 0 ? 41 : 50 + r; };
            if (t.rank() == 0) {
                for (int k = 0; k < senders; ++k) {
                    s.send(t, order[k], 40, const_bytes{});
                    s.probe(t, order[k], tag_of(order[k]));
                }
                const int tag = round == 0 ? 41 : any_tag;
                s.expect_status(s.probe(t, any_source, tag), 2, tag_of(2), 8, "iprobe(any_source) with ranks 2, 1, 3 queued in that order");
                for (int k = 0; k < senders; ++k)
                    s.expect_status(s.recv(t, any_source, tag, in), order[k], tag_of(order[k]), 8,
                                    round == 0 ? "recv(any_source, 41) of messages queued from ranks 2, 1, 3 in that order"
                                               : "recv(any_source, any_tag) of messages queued from ranks 2, 1, 3 in that order");
            } else if (t.rank() <= senders) {
                s.recv(t, 0, 40, mutable_bytes{});
                s.send(t, 0, tag_of(t.rank()), detail::pattern(8, static_cast<std::uint32_t>(t.rank())));
            }
        }
    });
}

/// Receives posted with irecv are matched in the order they were posted, wildcard or not:
/// (0, 7), (any_source, 7), (0, any_tag), (0, 7) take messages 0, 1, 2, 3 of four sent with
/// tag 7 — once all small, once of mixed sizes.
template <class Runner>
void wildcard_posted_order(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "wildcard_posted_order", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        for (const std::vector<std::size_t>& sizes : {std::vector<std::size_t>{8, 8, 8, 8},
                                                      std::vector<std::size_t>{5000, 8, std::size_t{1} << 20, 16}}) {
            const auto tag_of = [](std::size_t) { return 7; };
            if (t.rank() == 0) {
                s.recv(t, 1, 6, mutable_bytes{});  // rank 1 has posted its receives
                std::vector<std::vector<std::byte>> m;
                for (std::size_t i = 0; i < sizes.size(); ++i) m.push_back(detail::numbered(sizes[i], static_cast<std::uint32_t>(i), 70));
                auto rs = detail::isend_all(t, s, 1, m, tag_of);
                detail::wait_sends(t, s, rs, 1, tag_of);
            } else {
                const int sources[] = {0, any_source, 0, 0}, tags[] = {7, 7, any_tag, 7};
                const char* names[] = {"irecv(0, 7)", "irecv(any_source, 7)", "irecv(0, any_tag)", "irecv(0, 7)"};
                std::vector<std::vector<std::byte>> in(4, std::vector<std::byte>(std::size_t{1} << 20));
                std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
                for (std::size_t i = 0; i < 4; ++i)
                    rs.push_back(s.call("irecv", [&] { return t.irecv(sources[i], tags[i], in[i]); }));
                s.send(t, 0, 6, const_bytes{});
                for (std::size_t i = 0; i < 4; ++i) {
                    const status st = s.wait_recv(t, rs[i], sources[i], tags[i]);
                    s.expect(detail::number_of(in[i]) == i && st.size == sizes[i], "the receive posted ", i + 1, " of 4, ", names[i],
                             ", took message ", detail::number_of(in[i]), " (", st.size, " bytes); posted order says message ", i);
                    s.expect_status(st, 0, 7, sizes[i], names[i]);
                }
            }
        }
    });
}

}  // namespace comet::testing::checks
