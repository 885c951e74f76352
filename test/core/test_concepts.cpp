// Tests of comet/core/concepts.hpp with archetypes: a type with exactly the eight required
// members (the point-to-point core) models transport; one missing any of them does not; each
// capability concept recognises exactly its own operations.
#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>

#include <boost/test/unit_test.hpp>

namespace concepts_test {

/// Exactly the required members, nothing else.
struct minimal {
    struct request {};
    int rank() const { return 0; }
    int size() const { return 1; }
    request isend(int, int, comet::const_bytes) { return {}; }
    request irecv(int, int, comet::mutable_bytes) { return {}; }
    std::optional<comet::status> test(request&) { return comet::status{}; }
    std::optional<comet::status> iprobe(int, int) { return std::nullopt; }
    double now() { return 0.0; }
};

// Each lacks one required member (a deleted member hides the base's).
struct without_iprobe : minimal {
    void iprobe() = delete;
};
struct without_test : minimal {
    void test() = delete;
};
struct without_isend : minimal {
    void isend() = delete;
};
struct without_irecv : minimal {
    void irecv() = delete;
};
struct without_now : minimal {
    void now() = delete;
};
struct without_rank : minimal {
    void rank() = delete;
};
/// The old name of iprobe alone is not enough.
struct only_probe : minimal {
    void iprobe() = delete;
    std::optional<comet::status> probe(int, int) { return std::nullopt; }
};

struct synchronous : minimal {
    void ssend(int, int, comet::const_bytes) {}
    request issend(int, int, comet::const_bytes) { return {}; }
};
struct half_synchronous : minimal {  // ssend without issend: not the capability
    void ssend(int, int, comet::const_bytes) {}
};
struct everything : synchronous {
    void rsend(int, int, comet::const_bytes) {}
    request irsend(int, int, comet::const_bytes) { return {}; }
    void bsend(int, int, comet::const_bytes) {}
    comet::status sendrecv(int, int, comet::const_bytes, int, int, comet::mutable_bytes) { return {}; }
    request ibarrier() { return {}; }
    request ibroadcast(int, comet::mutable_bytes) { return {}; }
    request iallreduce_sum(std::span<double>) { return {}; }
    void progress() {}
};

}  // namespace concepts_test

BOOST_AUTO_TEST_SUITE(concepts)

using namespace concepts_test;

BOOST_AUTO_TEST_CASE(required_operations) {
    static_assert(comet::transport<minimal>);
    static_assert(!comet::transport<without_iprobe>);
    static_assert(!comet::transport<without_test>);
    static_assert(!comet::transport<without_isend>);
    static_assert(!comet::transport<without_irecv>);
    static_assert(!comet::transport<without_now>);
    static_assert(!comet::transport<without_rank>);
    static_assert(!comet::transport<only_probe>);
    static_assert(!comet::transport<int>);
    BOOST_TEST(true);  // the checks above are compile-time
}

BOOST_AUTO_TEST_CASE(capabilities_are_reported_exactly) {
    constexpr auto none = comet::capabilities_of<minimal>();
    BOOST_TEST(!(none.synchronous_send || none.ready_send || none.buffered_send || none.sendrecv ||
                 none.nonblocking_collectives || none.progress));
    BOOST_TEST(comet::capabilities_of<synchronous>().synchronous_send);
    BOOST_TEST(!comet::capabilities_of<half_synchronous>().synchronous_send);
    constexpr auto all = comet::capabilities_of<everything>();
    BOOST_TEST((all.synchronous_send && all.ready_send && all.buffered_send && all.sendrecv &&
                all.nonblocking_collectives && all.progress));
}

BOOST_AUTO_TEST_SUITE_END()
