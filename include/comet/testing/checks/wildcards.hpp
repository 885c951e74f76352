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

/// any_source takes a message from whoever sent one, the rank itself included (in a group of one
/// too), and the status says who; a probe that names a source sees only that source's messages
/// (groups of 1, 3, 4 and 5).
template <class Runner>
void any_source_matching(const Runner& run, const limits& l) {
    for (int wanted : {1, 3, 4, 5})
    testing::detail::run_check(run, wanted, "any_source_matching", l, [](auto& t, session& s) {
        const int p = t.size();
        if (t.rank() != 0) {
            const auto m = detail::pattern(static_cast<std::size_t>(t.rank()) * 1000, static_cast<std::uint32_t>(t.rank()));
            s.send(t, 0, 100 + t.rank(), m);
            return;
        }
        std::vector<std::byte> self_in(8);
        const auto self_out = detail::pattern(3, 99);
        auto to_self = s.call("isend", [&] { return t.isend(0, 99, const_bytes(self_out)); });
        s.expect_status(s.recv(t, any_source, 99, self_in), 0, 99, 3, "recv(any_source, 99) of a message this rank sent itself");
        s.expect_pattern(self_in, 3, 99, "a message to oneself");
        s.wait_send(t, to_self, 0, 99);
        if (p >= 3) {
            const int last = p - 1;
            s.probe(t, last, 100 + last);
            s.expect(!s.iprobe(t, 1, 100 + last).has_value(), "iprobe(1, ", 100 + last, ") reported the message of rank ", last);
            if (const auto st = s.iprobe(t, 1, any_tag))
                s.expect(st->source == 1, "iprobe(1, any_tag) reported a message from rank ", st->source);
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
/// first one its source sent; any_source, from whichever sender it picks, that sender's first
/// (the order between senders is not defined, as in MPI, so it is not checked). Ranks 1 to 3
/// each queue three messages at rank 0 before it receives any.
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
        if (p < 2) return;
        // any_source: each sender's three messages, 8 + r, 100 + r and 16 + r bytes; first all with
        // tag 41 (and a note with tag 42 after them), then with tags 51, 52, 53 taken with any_tag
        // too. Rank 0 waits until each sender's last message is queued before it receives.
        const int senders = std::min(p - 1, 3);
        const std::size_t base[] = {8, 100, 16};
        for (int round = 0; round < 2; ++round) {
            const auto tag_of = [round](int k) { return round == 0 ? 41 : 51 + k; };
            const int want_tag = round == 0 ? 41 : any_tag;
            const char* what = round == 0 ? "recv(any_source, 41) with three messages queued from each sender"
                                          : "recv(any_source, any_tag) with three messages queued from each sender";
            if (t.rank() == 0) {
                // A sender's last message queued means its earlier ones are (non-overtaking).
                for (int r = 1; r <= senders; ++r) s.probe(t, r, round == 0 ? 42 : tag_of(2));
                const status first = s.probe(t, any_source, want_tag);
                s.expect(first.source >= 1 && first.source <= senders && first.size == base[0] + static_cast<std::size_t>(first.source) &&
                             first.tag == tag_of(0),
                         "iprobe(any_source, ", round == 0 ? "41" : "any_tag", ") reported {source ", first.source, ", tag ", first.tag,
                         ", size ", first.size, "}: not the first message of any sender");
                std::vector<int> next(static_cast<std::size_t>(senders) + 1, 0);
                for (int i = 0; i < 3 * senders; ++i) {
                    const status st = s.recv(t, any_source, want_tag, in);
                    s.expect(st.source >= 1 && st.source <= senders, what, ": a message from rank ", st.source);
                    const int k = next[static_cast<std::size_t>(st.source)]++;
                    s.expect(k < 3, what, ": a fourth message from rank ", st.source);
                    const std::size_t size = base[k] + static_cast<std::size_t>(st.source);
                    s.expect(st.tag == tag_of(k) && st.size == size, what, ": took {source ", st.source, ", tag ", st.tag, ", size ", st.size,
                             "} where that sender's message ", k + 1, " of 3 was {tag ", tag_of(k), ", size ", size, "}");
                }
                if (round == 0)
                    for (int r = 1; r <= senders; ++r) s.recv(t, r, 42, mutable_bytes{});
            } else if (t.rank() <= senders) {
                std::vector<std::vector<std::byte>> m;
                for (std::size_t k = 0; k < 3; ++k) m.push_back(detail::pattern(base[k] + static_cast<std::size_t>(t.rank()), 40));
                auto rs = detail::isend_all(t, s, 0, m, [&](std::size_t k) { return tag_of(static_cast<int>(k)); });
                if (round == 0) s.send(t, 0, 42, const_bytes{});
                detail::wait_sends(t, s, rs, 0, [&](std::size_t k) { return tag_of(static_cast<int>(k)); });
            }
        }
    });
}

/// Receives posted with irecv are matched in the order they were posted, wildcard or not, whatever
/// their buffers' sizes: (0, 7), (any_source, 7), (0, any_tag), (0, 7) take messages 0, 1, 2, 3
/// of four sent with tag 7 — once all small into buffers growing in post order, once of mixed
/// sizes into buffers shrinking. Posted any_tag receives take every tag (0, high, reserved) in
/// the order sent; a posted any_source receive takes a message the rank sends itself.
template <class Runner>
void wildcard_posted_order(const Runner& run, const limits& l) {
    testing::detail::run_check(run, 2, "wildcard_posted_order", l, [](auto& t, session& s) {
        if (t.rank() > 1) return;
        bool growing = true;
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
                std::vector<std::vector<std::byte>> in;
                for (std::size_t i = 0; i < 4; ++i) in.emplace_back((std::size_t{1} << 20) + 64 * (growing ? i : 3 - i));
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
            growing = false;
        }
        // Rank 0 posts receives from rank 1 with any_tag (rank 1's closing barrier sends nothing
        // before these five are sent), and one from any_source for a message to itself.
        const std::vector<int> tags{1024, max_tag, first_reserved_tag, 0, 20000};
        const auto tag_of = [&](std::size_t i) { return tags[i]; };
        if (t.rank() == 1) {
            s.recv(t, 0, 6, mutable_bytes{});
            std::vector<std::vector<std::byte>> m;
            for (std::size_t i = 0; i < tags.size(); ++i) m.push_back(detail::numbered(8, static_cast<std::uint32_t>(i), 71));
            auto rs = detail::isend_all(t, s, 0, m, tag_of);
            detail::wait_sends(t, s, rs, 0, tag_of);
        } else {
            std::vector<std::vector<std::byte>> in(tags.size(), std::vector<std::byte>(8));
            std::vector<typename std::remove_cvref_t<decltype(t)>::request> rs;
            for (auto& b : in) rs.push_back(s.call("irecv", [&] { return t.irecv(1, any_tag, b); }));
            std::vector<std::byte> self_in(8);
            auto self_r = s.call("irecv", [&] { return t.irecv(any_source, 19, self_in); });
            s.send(t, 1, 6, const_bytes{});
            const auto self_out = detail::pattern(8, 19);
            auto self_s = s.call("isend", [&] { return t.isend(0, 19, const_bytes(self_out)); });
            s.expect_status(s.wait_recv(t, self_r, any_source, 19), 0, 19, 8, "irecv(any_source, 19) posted before this rank sent itself the message");
            s.wait_send(t, self_s, 0, 19);
            for (std::size_t i = 0; i < tags.size(); ++i) {
                const status st = s.wait_recv(t, rs[i], 1, any_tag);
                s.expect(st.tag == tags[i] && detail::number_of(in[i]) == i, "irecv(1, any_tag) posted ", i + 1, " of ", tags.size(),
                         " took {tag ", st.tag, ", message ", detail::number_of(in[i]), "}, expected {tag ", tags[i], ", message ", i, "}");
            }
        }
    });
}

}  // namespace comet::testing::checks
