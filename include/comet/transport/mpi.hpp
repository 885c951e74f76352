// comet/transport/mpi.hpp — the MPI transport (SPEC 4.2): each rank is a process of an MPI job,
// wrapping a boost::mpi::communicator. Not part of comet/comet.hpp: it needs an MPI library;
// link the comet::mpi CMake target.
//
//   comet::mpi::run([](comet::mpi::transport& t) { ... });      // under mpirun -np P
//
// Messages. A transport works on a duplicate of the communicator it is given (MPI_Comm_dup), so
// comet's messages never match the caller's own, with MPI_ERRORS_RETURN set, so MPI errors
// become exceptions. Tags are MPI tags; any_source and any_tag are MPI_ANY_SOURCE and
// MPI_ANY_TAG. Collectives are MPI's nonblocking ones (MPI_Ibarrier, MPI_Ibcast,
// MPI_Iallreduce), waited for as below. Capabilities Boost.MPI does not wrap (ssend, issend,
// rsend, irsend, nonblocking collectives) call MPI on the raw communicator.
//
// Matching. Every message is taken out of MPI with its envelope known before its bytes are
// received: comet must know a message's size before MPI writes it anywhere, because Open MPI
// 4.1's shared-memory single copy writes a large message whole into a smaller receive buffer,
// past its end, before it reports MPI_ERR_TRUNCATE. Hence the wire format of
// comet/transport/mpi/matching.hpp: a message of up to 1024 bytes travels whole; a larger one as
// a head (its first 1025 bytes, with the tag) and a tail (the rest, with a tag of its own),
// sent back to back. Every MPI message carrying a comet tag is then small enough that every
// MPI sends it eagerly, so a receive posted to MPI with a comet tag never meets a large message,
// and tails are received only after a matched probe (MPI_Improbe / MPI_Mprobe on the tail's
// tag), with their exact size. Two ways to receive:
//   - fast: a blocking `recv` with a tag, when no irecv posted earlier could take its message
//     and no held message matches, starts a receive with the caller's buffer (so a message
//     whose receive is waiting goes from MPI straight into it, as with MPI_Recv) and polls it;
//     the receive is persistent (MPI_Recv_init), kept while buffer, source and tag repeat, as
//     in a loop; a head's tail follows by probe.
//   - matched: everything else (`irecv`, any_tag, receives behind earlier irecvs) is matched by
//     comet itself: MPI_Mprobe / MPI_Improbe on any source and tag hand out each sender's
//     messages in the order sent; each goes to the earliest matching posted receive (received
//     with MPI_Imrecv into its buffer), or into the held queue — matched handles, not yet
//     received. A receive looks in the held queue before anything else, and a tail goes to the
//     receive that has its head. Per sender, the held queue is a prefix of what it sent, in the
//     order sent, older than what MPI still holds; a receive goes to MPI only when nothing held
//     or posted earlier could take its message, and a probe cannot take a message a receive
//     pending in MPI matches, so non-overtaking, any_source and post-order matching (a blocking
//     recv counts as posted last) hold as MPI defines them.
// A truncated message is received into comet's storage and dropped; truncation_error names
// both sizes and the rank.
//
// Buffering (the hard part). The concept requires that two ranks that both `send` and then
// `recv` complete, whatever the size; MPI_Send of a large message waits for the matching
// receive (rendezvous), so it deadlocks there. And a send may not copy when the receiver is
// already waiting (echo must run at MPI's speed). So:
//   - `send` starts MPI_Isend (head and tail) and returns as soon as MPI completes them: at once
//     for the sizes MPI sends eagerly. Still incomplete after a few polls, the sender *asks* the
//     receiver to take the message: a zero-byte message with tag ask_base + tag.
//   - Every wait of the transport (blocking calls, `wait`, `test`, `probe`, `progress`) takes
//     arrived messages out of MPI as above. A held message is a matched handle: its sender's
//     send stays incomplete. When the receiver meets an ask, it receives the asking sender's
//     newest held message with that tag into comet-owned storage (MPI_Mrecv), which completes
//     that sender's send; a later receive copies it from there.
// Why the ask takes exactly the blocked message. MPI hands out one sender's messages in the
// order sent, so when the receiver reaches an ask, every earlier message of that sender has
// been taken: it is held, or a receive took it. The blocked message is the sender's last before
// its ask. If it is held, it is the newest held message from that sender with that tag. If a
// receive took it, it needs no help, and no older held message from that sender with that tag
// can exist (a receive takes the oldest matching held message before it waits, and an arrival
// goes to the earliest matching posted receive) — the ask finds nothing to take. Messages sent
// after the ask are not taken before it. While a fast receive is posted to MPI, any arrival
// that belongs to its source and tag shows that MPI has matched it already (MPI would have given
// it that arrival otherwise), so it is completed first and keeps its place in this order. Only
// `send` asks: a held ssend message stays a handle, and MPI completes an MPI_Issend only when
// the handle is received, so ssend/issend keep their meaning. comet's tags go up to 98303; the
// transport refuses an MPI whose MPI_TAG_UB is smaller (MPI promises only 32767; Open MPI and
// MPICH offer far more).
// Cost. An echo, or any exchange whose receive is waiting in time, copies nothing more than
// MPI does and sends no ask at eager sizes; a large message costs one more eager message (its
// head) and, if the receiver does not take it at once, a zero-byte ask. A pairwise exchange
// of large messages, where both send first, copies each message twice (into storage, then
// into the receive): the price of buffered semantics (the threads transport pays it too).
// bench/bench_mpi.cpp measures echo against a raw MPI_Send/MPI_Recv ping-pong in the same job.
// Ready sends (rsend, irsend) go out as standard sends that never ask: MPI_Irsend needs a
// receive posted to MPI, and most of comet's receives are matched by probes instead.
//
// Progress. Nothing moves while a rank computes without calling the transport (unless the MPI
// library progresses by itself). Errors: bad arguments raise invalid_argument naming the value
// and the rank before MPI is called. `abort`, and an exception escaping `run`'s function, print
// "comet: rank R: <message>" and call MPI_Abort, which ends every process of the job with a
// non-zero status: no rank is left waiting. Time: MPI_Wtime, global when MPI_WTIME_IS_GLOBAL
// says so. One thread per transport (MPI_THREAD_SINGLE is enough).
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/matching.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace comet::mpi {

class transport;

namespace detail {

/// Polls of an incomplete blocking send before it asks its receiver to take the message. An
/// ask costs a zero-byte message; a receiver that is already waiting takes an eager message at
/// once, and for a large one the ask is small next to the transfer. bench/bench_mpi.cpp
/// measures the effect on echo and pairwise exchange.
inline constexpr unsigned ask_after_polls = 8;

/// Waits that poll MPI requests look for arrived messages every this many polls: often enough
/// that a blocked sender's ask is answered within a microsecond or so, rarely enough that the
/// MPI_Improbe costs next to nothing (a fast receive runs within a percent of MPI_Recv).
inline constexpr unsigned arrival_interval = 16;

inline int count_of(std::size_t n) noexcept { return static_cast<int>(std::min(n, max_message_size)); }

/// A message MPI matched for this rank (by MPI_Mprobe or MPI_Improbe), not yet received.
struct arrival {
    int source = 0;
    int tag = 0;
    std::size_t size = 0;
    MPI_Message handle = MPI_MESSAGE_NULL;
};

enum class send_mode : unsigned char { standard, synchronous };

/// A blocking receive posted to MPI (the fast path), while it waits.
struct fast_recv {
    int source = any_source;
    int tag = 0;
    mutable_bytes buffer;
    bool bounce = false;  ///< received into the transport's bounce buffer (the caller's is small)
    MPI_Request* request = nullptr;  ///< the transport's persistent receive, started
    bool finished = false;
    int error = MPI_SUCCESS;
    MPI_Status status{};
    std::size_t size = 0;         ///< the size of the message it received
    posted_recv* node = nullptr;  ///< its message is split: the receive awaiting the tail
};

/// The persistent receive (MPI_Recv_init) the fast path starts while a rank receives into the
/// same place from the same source with the same tag, as echo and most loops do. MPI_Start on
/// it costs less than a new MPI_Irecv: with Open MPI 4.1's shared memory, a ping-pong polling
/// a started persistent receive ran as fast as one in MPI_Recv, one polling MPI_Irecv's
/// requests ~7% slower at 8 bytes (~9 ns a message).
struct persistent_recv {
    void* into = nullptr;
    int count = -1;
    int source = any_source;
    int tag = any_tag;
    MPI_Request request = MPI_REQUEST_NULL;

    /// The request for these arguments: this one if they are its own, else a new one.
    MPI_Request& for_(void* i, int c, int src, int t, MPI_Comm comm, int& rc) {
        if (request != MPI_REQUEST_NULL && into == i && count == c && source == src && tag == t) return request;
        drop();
        rc = MPI_Recv_init(i, c, MPI_BYTE, src, t, comm, &request);
        if (rc == MPI_SUCCESS) {
            into = i;
            count = c;
            source = src;
            tag = t;
        }
        return request;
    }
    /// Frees the request (inactive, or marked to be freed once it completes).
    void drop() noexcept {
        if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
        request = MPI_REQUEST_NULL;
    }
};

}  // namespace detail

/// A nonblocking operation of the MPI transport. Move-only. Destroying it while pending cancels
/// a receive no message has matched yet (one already matched is completed first), and completes
/// a send or collective first — except while an exception unwinds, when a send is left to MPI
/// (MPI_Request_free) and a collective abandoned.
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

    /// True while the operation has not completed.
    bool pending() const noexcept {
        return mpi_[0] != MPI_REQUEST_NULL || mpi_[1] != MPI_REQUEST_NULL || (recv_ && !recv_->done());
    }

private:
    friend class transport;
    enum class kind : unsigned char { none, send, collective };

    void take(request& o) noexcept {
        owner_ = std::exchange(o.owner_, nullptr);
        mpi_[0] = std::exchange(o.mpi_[0], MPI_REQUEST_NULL);
        mpi_[1] = std::exchange(o.mpi_[1], MPI_REQUEST_NULL);
        recv_ = std::exchange(o.recv_, nullptr);
        kind_ = std::exchange(o.kind_, kind::none);
        complete_ = std::exchange(o.complete_, false);
        error_ = std::exchange(o.error_, MPI_SUCCESS);
        result_ = std::exchange(o.result_, status{});
    }
    inline void release() noexcept;

    transport* owner_ = nullptr;
    MPI_Request mpi_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};  ///< a send (whole or head, tail) or a collective
    detail::posted_recv* recv_ = nullptr;                        ///< a receive (in the transport's pool)
    kind kind_ = kind::none;
    bool complete_ = false;    ///< a send or collective finished, not yet collected
    int error_ = MPI_SUCCESS;  ///< the MPI error it finished with
    status result_;            ///< a send: {destination, tag, size}
};

/// One rank's endpoint: one process of an MPI job, on a duplicate of a communicator. Every
/// member is called from the thread that drives MPI in this process.
/// @code
///   comet::mpi::initialize();
///   comet::mpi::transport t(boost::mpi::communicator{});        // MPI_COMM_WORLD, duplicated
///   comet::result_set r = comet::echo(t, {.sizes = {8, 1024}});
///   t.barrier();                                                // before t goes away
/// @endcode
class transport {
public:
    using request = mpi::request;

    /// Duplicates `comm` (collective over it: every rank of `comm` constructs at once).
    /// @throws not_supported if the MPI library's MPI_TAG_UB is below 98303 (see the top of
    /// this header); invalid_argument if `comm` is a null communicator.
    explicit transport(const boost::mpi::communicator& comm) : bounce_(new std::byte[detail::head_size]) {
        if (!boost::mpi::environment::initialized() || boost::mpi::environment::finalized())
            raise<error>(-1, "mpi::transport: MPI is not running (call comet::mpi::initialize() or use comet::mpi::run)");
        const MPI_Comm user = comm;
        if (user == MPI_COMM_NULL) raise<invalid_argument>(-1, "mpi::transport: the communicator is MPI_COMM_NULL");
        detail::check(MPI_Comm_dup(user, &comm_), -1, "mpi::transport: MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        int* tag_ub = nullptr;  // MPI_TAG_UB and MPI_WTIME_IS_GLOBAL: attributes of MPI_COMM_WORLD
        int found = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
        if (!found || !tag_ub || *tag_ub < detail::largest_tag) {
            const int ub = found && tag_ub ? *tag_ub : -1;
            MPI_Comm_free(&comm_);
            raise<not_supported>(rank_, "mpi::transport: MPI_TAG_UB is ", ub, "; comet needs tags up to ", detail::largest_tag);
        }
        int* global = nullptr;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
        clock_is_global_ = found && global && *global != 0;
    }
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;

    /// Receives and drops messages still held (so their senders finish), then frees the
    /// duplicate communicator. Requests must be gone first. Call `barrier()` before if peers may
    /// still be sending (run does).
    ~transport() {
        if (comm_ == MPI_COMM_NULL || boost::mpi::environment::finalized()) return;
        if (std::uncaught_exceptions() == 0) held_.discard();  // unwinding: leave MPI alone, an abort follows
        persistent_.drop();
        MPI_Comm_free(&comm_);
    }

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    /// The duplicate communicator comet's messages travel on.
    MPI_Comm native() const noexcept { return comm_; }

    // ---- point to point ----

    void send(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "send", detail::send_mode::standard, true);
    }

    status recv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "recv");
        if (tag != any_tag && (lists_.nothing_posted() || !lists_.overlaps(source, tag)) &&
            (held_.empty() || held_.find(source, tag) == held_.end()))
            return fast_receive(source, tag, buffer);
        request r = start_recv(source, tag, buffer);  // matched by comet, posted after every irecv
        return wait(r);
    }

    request isend(int dest, int tag, const_bytes data) {
        return start_send(dest, tag, data, "isend", detail::send_mode::standard);
    }

    request irecv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "irecv");
        return start_recv(source, tag, buffer);
    }

    status wait(request& r) {
        if (r.recv_) {
            wait_receive(*r.recv_);
        } else {
            for (unsigned polls = 1; r.pending(); ++polls) {
                test_mpi(r);
                if (r.pending() && polls % detail::arrival_interval == 0) take_arrived();
            }
        }
        return collect(r);
    }

    std::optional<status> test(request& r) {
        if (r.pending()) {
            take_arrived();  // a caller polling test() must not leave a sender blocked on it
            poll_once(r);
            if (r.pending()) return std::nullopt;
        }
        return collect(r);
    }

    void wait_all(std::span<request> requests) {
        for (;;) {
            bool all = true;
            for (auto& r : requests)
                if (r.pending()) {
                    poll_once(r);
                    all = all && !r.pending();
                }
            if (all) break;
            take_arrived();
        }
        for (auto& r : requests) collect(r);  // all complete: collects statuses, raises the first error
    }

    std::optional<status> probe(int source, int tag) {
        check_recv(source, tag, "probe");
        take_arrived();  // every arrived message is held (or given to its posted receive) now
        auto it = held_.find(source, tag);
        if (it == held_.end()) return std::nullopt;
        // A head's tail was sent right after it: wait the moment it takes, to report the size.
        while (it->split && !it->tail_arrived) {
            dispatch(next_arrival());
            it = held_.find(source, tag);
        }
        return status{it->source, it->tag, it->size()};
    }

    // ---- optional capabilities (MPI calls Boost.MPI does not wrap) ----

    /// MPI_Issend, waited for: completes once the receiver has received the message.
    void ssend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "ssend", detail::send_mode::synchronous, false);
    }
    request issend(int dest, int tag, const_bytes data) {
        return start_send(dest, tag, data, "issend", detail::send_mode::synchronous);
    }

    /// The caller promises the matching receive is posted, so the send never asks. Sent as a
    /// standard send: MPI_Irsend needs a receive posted to MPI, and most of comet's receives are
    /// matched by probes instead (see the top of this header).
    void rsend(int dest, int tag, const_bytes data) {
        blocking_send(dest, tag, data, "rsend", detail::send_mode::standard, false);
    }
    request irsend(int dest, int tag, const_bytes data) {
        return start_send(dest, tag, data, "irsend", detail::send_mode::standard);
    }

    /// Starts the send, receives, then completes the send: two ranks that sendrecv with each
    /// other match each other's messages, whatever the size.
    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        request r = isend(dest, send_tag, out);
        const status s = recv(source, recv_tag, in);
        wait(r);
        return s;
    }

    /// Lets MPI progress and answers the asks of blocked senders, without completing anything.
    void progress() { take_arrived(); }

    // ---- collectives ----

    void barrier() {
        MPI_Request r = MPI_REQUEST_NULL;
        detail::check(MPI_Ibarrier(comm_, &r), rank_, "barrier: MPI_Ibarrier");
        finish_collective(r, "barrier");
    }

    void broadcast(int root, mutable_bytes data) {
        check_rank(root, "broadcast root");
        check_size(data.size(), "broadcast");
        MPI_Request r = MPI_REQUEST_NULL;
        detail::check(MPI_Ibcast(data.data(), detail::count_of(data.size()), MPI_BYTE, root, comm_, &r), rank_,
                      "broadcast: MPI_Ibcast");
        finish_collective(r, "broadcast");
    }

    /// MPI_Iallreduce with MPI_SUM. Every rank gets the same bits: MPI's reduction algorithms
    /// either compute each element once and hand the result around, or combine partners'
    /// values pairwise (a + b and b + a are the same double), so no rank sums in another order.
    void allreduce_sum(std::span<double> values) {
        check_size(values.size_bytes(), "allreduce_sum");
        MPI_Request r = MPI_REQUEST_NULL;
        detail::check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), detail::count_of(values.size()), MPI_DOUBLE, MPI_SUM, comm_, &r),
                      rank_, "allreduce_sum: MPI_Iallreduce");
        finish_collective(r, "allreduce_sum");
    }

    request ibarrier() {
        request r = collective_request();
        detail::check(MPI_Ibarrier(comm_, &r.mpi_[0]), rank_, "ibarrier: MPI_Ibarrier");
        return r;
    }
    request ibroadcast(int root, mutable_bytes data) {
        check_rank(root, "ibroadcast root");
        check_size(data.size(), "ibroadcast");
        request r = collective_request();
        detail::check(MPI_Ibcast(data.data(), detail::count_of(data.size()), MPI_BYTE, root, comm_, &r.mpi_[0]), rank_,
                      "ibroadcast: MPI_Ibcast");
        return r;
    }
    request iallreduce_sum(std::span<double> values) {
        check_size(values.size_bytes(), "iallreduce_sum");
        request r = collective_request();
        detail::check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), detail::count_of(values.size()), MPI_DOUBLE, MPI_SUM, comm_,
                                     &r.mpi_[0]),
                      rank_, "iallreduce_sum: MPI_Iallreduce");
        return r;
    }

    // ---- time, computation, failure ----

    /// MPI_Wtime, in seconds.
    double now() const noexcept { return MPI_Wtime(); }
    /// MPI_WTIME_IS_GLOBAL: whether every process's MPI_Wtime reads the same clock.
    bool clock_is_global() const noexcept { return clock_is_global_; }

    void compute(const work& w) { perform(w); }

    /// Prints "comet: rank R: <message>" on stderr and ends the whole job (MPI_Abort, status 1).
    [[noreturn]] void abort(std::string_view message) { detail::fail(comm_, rank_, message); }

private:
    friend class mpi::request;

    // ---- argument checks: one-line errors naming the value and this rank, before MPI sees it ----

    void check_rank(int r, const char* what) const {
        if (r < 0 || r >= size_) raise<invalid_argument>(rank_, what, ": rank ", r, " is outside 0..", size_ - 1);
    }
    void check_size(std::size_t size, const char* what) const {
        if (size > max_message_size)
            raise<invalid_argument>(rank_, what, ": message of ", size, " bytes exceeds the ", max_message_size, "-byte limit");
    }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        check_rank(dest, what);
        if (tag < 0 || tag > max_tag) raise<invalid_argument>(rank_, what, ": tag ", tag, " is outside 0..", max_tag);
        check_size(size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        if (source != any_source) check_rank(source, what);
        if (tag != any_tag && (tag < 0 || tag > max_tag))
            raise<invalid_argument>(rank_, what, ": tag ", tag, " is outside 0..", max_tag, " (or any_tag)");
    }

    /// "rank 3" or "any rank", "tag 7" or "any tag", formatted only when printed: error messages
    /// are built lazily, and these sit in the arguments of checks on every message's path.
    struct source_name {
        int rank;
        friend std::ostream& operator<<(std::ostream& os, source_name n) {
            return n.rank == any_source ? os << "any rank" : os << "rank " << n.rank;
        }
    };
    struct tag_name {
        int tag;
        friend std::ostream& operator<<(std::ostream& os, tag_name n) { return n.tag == any_tag ? os << "any tag" : os << "tag " << n.tag; }
    };

    // ---- sending ----

    /// Starts the MPI sends of a message: whole, or head and tail (see comet/transport/mpi/matching.hpp).
    void start_parts(int dest, int tag, const_bytes data, const char* what, detail::send_mode mode, MPI_Request (&parts)[2]) {
        const auto start = mode == detail::send_mode::synchronous ? &MPI_Issend : &MPI_Isend;
        int rc = MPI_SUCCESS;
        if (data.size() <= detail::whole_limit) {
            rc = start(data.data(), detail::count_of(data.size()), MPI_BYTE, dest, tag, comm_, &parts[0]);
        } else {
            rc = MPI_Isend(data.data(), static_cast<int>(detail::head_size), MPI_BYTE, dest, tag, comm_, &parts[0]);
            if (rc == MPI_SUCCESS)
                rc = start(data.data() + detail::head_size, detail::count_of(data.size() - detail::head_size), MPI_BYTE, dest,
                           detail::tail_base + tag, comm_, &parts[1]);
        }
        detail::check(rc, rank_, what, " to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
    }

    /// Tests both parts of a send; true when both are complete.
    bool test_parts(MPI_Request (&parts)[2], int& error) {
        for (auto& r : parts)
            if (r != MPI_REQUEST_NULL) {
                int done = 0;
                const int rc = MPI_Test(&r, &done, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS) {
                    error = rc;
                    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
                }
            }
        return parts[0] == MPI_REQUEST_NULL && parts[1] == MPI_REQUEST_NULL;
    }

    /// The blocking sends: start and wait. After a few polls, a send still incomplete asks its
    /// receiver to take the message (with `ask`: buffered semantics, see the top of this header)
    /// and takes arrived messages at every poll (a peer blocked in its own send may be waiting
    /// for this rank to answer its ask: the pairwise exchange).
    void blocking_send(int dest, int tag, const_bytes data, const char* what, detail::send_mode mode, bool ask) {
        check_send(dest, tag, data.size(), what);
        if (mode == detail::send_mode::standard && data.size() <= detail::whole_limit) {
            // A whole message is small enough that MPI sends it eagerly: MPI_Send returns without
            // the receiver (the wire format relies on this already), and costs less than
            // MPI_Isend and the MPI_Test that would find it complete.
            detail::check(MPI_Send(data.data(), detail::count_of(data.size()), MPI_BYTE, dest, tag, comm_), rank_, what,
                          " to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
            return;
        }
        MPI_Request parts[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        start_parts(dest, tag, data, what, mode, parts);
        try {
            int error = MPI_SUCCESS;
            for (unsigned polls = 1;; ++polls) {
                const bool done = test_parts(parts, error);
                detail::check(error, rank_, what, " to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
                if (done) return;
                // The first polls only test: an eager send completes within them, and a look for
                // arrivals (MPI_Improbe) on every poll would slow its completion being seen.
                if (polls < detail::ask_after_polls) continue;
                if (ask && polls == detail::ask_after_polls) ask_to_take(dest, tag);
                take_arrived();
            }
        } catch (...) {
            for (auto& r : parts)
                if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
            throw;
        }
    }

    /// The nonblocking sends: the request completes when MPI completes the send; no ask (the
    /// caller decides when to wait, as with MPI_Isend).
    request start_send(int dest, int tag, const_bytes data, const char* what, detail::send_mode mode) {
        check_send(dest, tag, data.size(), what);
        request r;
        r.owner_ = this;
        r.kind_ = request::kind::send;
        r.result_ = status{dest, tag, data.size()};
        start_parts(dest, tag, data, what, mode, r.mpi_);
        return r;
    }

    /// A zero-byte message asking `dest` to take this rank's newest message with `tag`.
    void ask_to_take(int dest, int tag) {
        MPI_Request q = MPI_REQUEST_NULL;
        detail::check(MPI_Isend(nullptr, 0, MPI_BYTE, dest, detail::ask_base + tag, comm_, &q), rank_, "send: asking to take");
        MPI_Request_free(&q);  // zero bytes: nothing to keep alive; MPI completes it on its own
    }

    // ---- arrivals: every message not taken by a fast receive leaves MPI here, in MPI's order ----

    /// Waits (in MPI) for the next message for this rank and takes it.
    detail::arrival next_arrival() {
        MPI_Status st;
        detail::arrival a;
        detail::check(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &a.handle, &st), rank_, "MPI_Mprobe");
        return described(a, st);
    }

    /// Takes every message that has arrived, without waiting.
    void take_arrived() {
        for (;;) {
            int found = 0;
            MPI_Status st;
            detail::arrival a;
            detail::check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &found, &a.handle, &st), rank_, "MPI_Improbe");
            if (!found) return;
            dispatch(described(a, st));
        }
    }

    static detail::arrival described(detail::arrival a, const MPI_Status& st) {
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        a.source = st.MPI_SOURCE;
        a.tag = st.MPI_TAG;
        a.size = static_cast<std::size_t>(count < 0 ? 0 : count);
        return a;
    }

    /// An arrival: an ask is answered, a tail goes to the receive that has its head (or to its
    /// held head), a whole message or head goes to the earliest matching posted receive, or is
    /// held.
    void dispatch(const detail::arrival& a) {
        // It belongs to the fast receive's source and tag, so MPI has matched that receive
        // already: complete it first, so that it keeps its place in the order.
        if (fast_ && !fast_->finished && (fast_->source == any_source || fast_->source == a.source) &&
            detail::comet_tag(a.tag) == fast_->tag)
            finish_fast(*fast_);
        if (a.tag >= detail::tail_base) return give_tail(a);
        if (a.tag >= detail::ask_base) return answer_ask(a);
        detail::held_message m{a.source, a.tag, detail::part{a.size, a.handle, nullptr}, a.size == detail::head_size, false, {}};
        if (!lists_.nothing_posted())
            if (detail::posted_recv* p = lists_.match(a.source, a.tag)) return deliver(std::move(m), *p);
        held_.push(std::move(m));
    }

    void give_tail(const detail::arrival& a) {
        const int tag = a.tag - detail::tail_base;
        detail::part tail{a.size, a.handle, nullptr};
        if (detail::posted_recv* p = lists_.awaiting(a.source, tag)) return take_tail(std::move(tail), *p);
        if (auto it = held_.missing_tail(a.source, tag); it != held_.end()) {
            it->tail = std::move(tail);
            it->tail_arrived = true;
            return;
        }
        (void)tail.store();  // a tail without a head (not sent by comet): dropped
    }

    /// The asking sender's newest held message with the asked-for tag is the one it is blocked
    /// on; taking it into storage completes that send. None held: a receive has it already.
    void answer_ask(detail::arrival a) {
        detail::check(MPI_Mrecv(nullptr, 0, MPI_BYTE, &a.handle, MPI_STATUS_IGNORE), rank_, "receiving an ask");
        const int tag = a.tag - detail::ask_base;
        if (auto it = held_.newest(a.source, tag); it != held_.end()) {
            int rc = it->first.store();
            if (rc == MPI_SUCCESS && it->tail_arrived) rc = it->tail.store();
            detail::check(rc, rank_, "taking the message of rank ", a.source, " (tag ", tag, ") into storage");
        }
    }

    // ---- receiving ----

    /// The fast path of a blocking recv: posted to MPI with the caller's buffer (or, if that is
    /// smaller than a head, with the bounce buffer, so that MPI never truncates), polled.
    status fast_receive(int source, int tag, mutable_bytes buffer) {
        detail::fast_recv f;
        f.source = source;
        f.tag = tag;
        f.buffer = buffer;
        f.bounce = buffer.size() < detail::head_size;
        std::byte* into = f.bounce ? bounce_.get() : buffer.data();
        const int count = f.bounce ? static_cast<int>(detail::head_size) : detail::count_of(buffer.size());
        int rc = MPI_SUCCESS;
        f.request = &persistent_.for_(into, count, source, tag, comm_, rc);
        if (rc == MPI_SUCCESS) rc = MPI_Start(f.request);
        detail::check(rc, rank_, "recv from ", source_name{source}, " (", tag_name{tag}, ")");
        fast_ = &f;
        try {
            for (unsigned polls = 1; !f.finished; ++polls) {
                int done = 0;
                f.error = MPI_Test(f.request, &done, &f.status);
                if (done || f.error != MPI_SUCCESS) {
                    fast_done(f);
                    break;
                }
                if (polls % detail::arrival_interval == 0) take_arrived();
            }
        } catch (...) {
            fast_ = nullptr;
            if (!f.finished) {
                MPI_Cancel(f.request);
                MPI_Wait(f.request, MPI_STATUS_IGNORE);
            }
            throw;
        }
        fast_ = nullptr;
        if (f.error != MPI_SUCCESS) persistent_.drop();  // failed: MPI may still hold it
        detail::check(f.error, rank_, "recv from ", source_name{source}, " (", tag_name{tag}, ")");
        if (f.node) {  // a head: its tail comes through the matched path
            request r;
            r.owner_ = this;
            r.recv_ = f.node;
            return wait(r);
        }
        const status got{f.status.MPI_SOURCE, f.status.MPI_TAG, f.size};
        if (got.size > buffer.size()) throw truncation_error(truncated("recv", source, tag, got, buffer.size()));
        if (f.bounce && got.size) std::memcpy(buffer.data(), bounce_.get(), got.size);
        return got;
    }

    /// Completes the fast receive, which MPI has matched (see dispatch).
    void finish_fast(detail::fast_recv& f) {
        f.error = MPI_Wait(f.request, &f.status);
        fast_done(f);
    }

    /// The fast receive has its message. A head makes it a receive awaiting its tail, at once,
    /// so that the tail (which may be the very arrival that showed the match) finds it.
    void fast_done(detail::fast_recv& f) {
        f.finished = true;
        if (f.error != MPI_SUCCESS) return;
        int count = 0;
        MPI_Get_count(&f.status, MPI_BYTE, &count);
        f.size = static_cast<std::size_t>(count < 0 ? 0 : count);
        if (f.size != detail::head_size) return;
        detail::posted_recv& p = *(f.node = lists_.allocate());
        p.source = f.source;
        p.tag = f.tag;
        p.buffer = f.buffer.data();
        p.capacity = f.buffer.size();  // below head_size (the head went to the bounce buffer): truncated
        p.matched = true;
        p.result = status{f.status.MPI_SOURCE, f.status.MPI_TAG, detail::head_size};
        p.awaiting_tail = true;
        lists_.await_tail(&p);
    }

    /// Starts a receive matched by comet: from the held queue if a message there matches, else
    /// posted (after every receive posted before it).
    request start_recv(int source, int tag, mutable_bytes buffer) {
        request r;
        r.owner_ = this;
        detail::posted_recv& p = *(r.recv_ = lists_.allocate());
        p.source = source;
        p.tag = tag;
        p.buffer = buffer.data();
        p.capacity = buffer.size();
        if (!held_.empty())
            if (auto it = held_.find(source, tag); it != held_.end()) {
                deliver(held_.take(it), p);
                return r;
            }
        lists_.post(&p);
        return r;
    }

    /// Receives part `x` into `into`: a handle without blocking (MPI_Imrecv into `receiving`),
    /// stored bytes by copying.
    void receive_part(detail::part& x, std::byte* into, MPI_Request& receiving, detail::posted_recv& p) {
        if (!x.stored()) {
            const int rc = MPI_Imrecv(into, detail::count_of(x.size), MPI_BYTE, &x.handle, &receiving);
            if (rc != MPI_SUCCESS) p.error = rc;
        } else if (x.size) {
            std::memcpy(into, x.data.get(), x.size);
        }
    }

    /// Gives message `m` to receive `p`. A message too large for the buffer is received into
    /// storage and dropped, and p completes with the truncation.
    void deliver(detail::held_message m, detail::posted_recv& p) {
        p.matched = true;
        p.result = status{m.source, m.tag, m.first.size};
        if (!m.split) {
            if (m.first.size > p.capacity) {
                (void)m.first.store();
                p.overflow = m.first.size;
            } else {
                receive_part(m.first, p.buffer, p.first, p);
            }
            return;
        }
        if (p.capacity >= detail::head_size)
            receive_part(m.first, p.buffer, p.first, p);
        else
            (void)m.first.store();  // dropped: the message cannot fit; its tail tells the size
        if (m.tail_arrived) {
            take_tail(std::move(m.tail), p);
        } else {
            p.awaiting_tail = true;
            lists_.await_tail(&p);
        }
    }

    void take_tail(detail::part tail, detail::posted_recv& p) {
        p.awaiting_tail = false;
        p.result.size = detail::head_size + tail.size;
        if (p.result.size > p.capacity) {
            (void)tail.store();
            p.overflow = p.result.size;
            return;
        }
        receive_part(tail, p.buffer + detail::head_size, p.tail, p);
    }

    /// One look at the MPI receives of `p`.
    static void test_receive(detail::posted_recv& p) {
        for (MPI_Request* r : {&p.first, &p.tail})
            if (*r != MPI_REQUEST_NULL) {
                int done = 0;
                const int rc = MPI_Test(r, &done, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS) {
                    p.error = rc;
                    if (*r != MPI_REQUEST_NULL) MPI_Request_free(r);
                }
            }
    }

    /// Waits for receive `p`: in MPI_Mprobe while it still needs a message (its own, or its
    /// tail), polling while MPI receives into its buffer.
    void wait_receive(detail::posted_recv& p) {
        for (unsigned polls = 1;; ++polls) {
            test_receive(p);
            if (p.done()) return;
            if (!p.matched || p.awaiting_tail)
                dispatch(next_arrival());
            else if (polls % detail::arrival_interval == 0)
                take_arrived();
        }
    }

    void test_mpi(request& r) {
        int error = MPI_SUCCESS;
        if (test_parts(r.mpi_, error) || error != MPI_SUCCESS) {
            if (error != MPI_SUCCESS) r.error_ = error;
            if (!r.pending()) r.complete_ = true;
        }
    }

    /// One look at pending request `r`, without waiting.
    void poll_once(request& r) {
        if (r.recv_)
            test_receive(*r.recv_);
        else
            test_mpi(r);
    }

    /// Hands out the status of completed request `r` once (then a default status), raising the
    /// error it completed with.
    status collect(request& r) {
        r.owner_ = nullptr;
        if (detail::posted_recv* p = std::exchange(r.recv_, nullptr)) {
            const int source = p->source, tag = p->tag, failure = p->error;
            const std::size_t capacity = p->capacity, overflow = p->overflow;
            const status s = p->result;
            lists_.release(p);
            if (overflow) throw truncation_error(truncated("recv", source, tag, s, capacity));
            if (failure != MPI_SUCCESS)
                raise<error>(rank_, "recv from ", source_name{source}, " (", tag_name{tag}, "): ", detail::error_text(failure));
            return s;
        }
        if (!r.complete_) return status{};
        r.complete_ = false;
        const int rc = std::exchange(r.error_, MPI_SUCCESS);
        const status s = std::exchange(r.result_, status{});
        if (rc == MPI_SUCCESS) return s;
        if (r.kind_ == request::kind::send)
            raise<error>(rank_, "isend to rank ", s.source, " (tag ", s.tag, ", ", s.size, " bytes): ", detail::error_text(rc));
        raise<error>(rank_, "nonblocking collective: ", detail::error_text(rc));
    }

    request collective_request() {
        request r;
        r.owner_ = this;
        r.kind_ = request::kind::collective;
        return r;
    }

    /// Waits for a collective, taking arrived messages meanwhile: a peer may be blocked in a send
    /// to this rank before it enters the same collective.
    void finish_collective(MPI_Request& r, const char* what) {
        for (unsigned polls = 1;; ++polls) {
            int done = 0;
            detail::check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), rank_, what);
            if (done) return;
            if (polls % detail::arrival_interval == 0) take_arrived();
        }
    }

    std::string truncated(const char* what, int want_source, int want_tag, const status& got, std::size_t capacity) const {
        return comet::detail::concat("rank ", rank_, ": ", what, " from ", source_name{want_source}, " (", tag_name{want_tag},
                                     "): the ", got.size, "-byte message from rank ", got.source, " (tag ", got.tag,
                                     ") does not fit the ", capacity, "-byte buffer");
    }

    /// For a request dropped while pending.
    void complete_quietly(request& r) noexcept {
        try {
            wait(r);
        } catch (...) {
        }
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 0;
    bool clock_is_global_ = false;
    detail::held_queue held_;
    detail::receive_lists lists_;
    detail::fast_recv* fast_ = nullptr;     ///< the blocking receive posted to MPI, while it waits
    detail::persistent_recv persistent_;    ///< the fast path's receive, reused while its arguments repeat
    std::unique_ptr<std::byte[]> bounce_;   ///< where a fast receive into a small buffer lands
};

inline void request::release() noexcept {
    if (recv_) {
        if (!recv_->matched)
            owner_->lists_.unpost(recv_);  // not matched: cancelled
        else if (!recv_->done())
            owner_->complete_quietly(*this);  // matched: its sender waits for it
        if (recv_) owner_->lists_.release(recv_);
        recv_ = nullptr;
    }
    if (pending()) {
        if (std::uncaught_exceptions() == 0 && owner_) {
            owner_->complete_quietly(*this);
        } else if (kind_ == kind::send) {
            for (auto& r : mpi_)
                if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
        }
        // A collective abandoned while an exception unwinds: MPI forbids freeing it; the job
        // is about to end (run aborts it), so it is left as it is.
    }
    mpi_[0] = mpi_[1] = MPI_REQUEST_NULL;
    owner_ = nullptr;
    complete_ = false;
}

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> && sendrecv_transport<transport> &&
              nonblocking_collective_transport<transport> && progress_transport<transport>);

/// Runs `fn(transport&)` on this process's rank of `comm` and returns what it returns. Every
/// process of `comm` calls run with the same function (@pre). After `fn`, the ranks meet in a
/// barrier that still takes arrived messages (so a rank that finished does not strand a peer
/// still sending to it). If `fn` throws on any rank, that rank prints "comet: rank R: <what>"
/// on stderr and ends the whole job with MPI_Abort (status 1): no rank is left waiting for it.
/// @code
///   comet::mpi::initialize();
///   boost::mpi::communicator world;
///   auto r = comet::mpi::run(world, [](comet::mpi::transport& t) { return comet::echo(t, {.sizes = {8}}); });
///   // r: the records measured on this rank (the test node's, on rank 0)
/// @endcode
template <class F>
auto run(const boost::mpi::communicator& comm, F&& fn) -> std::invoke_result_t<F&, transport&> {
    using result = std::invoke_result_t<F&, transport&>;
    // The transport lives outside the try block, so that when fn throws it is still there
    // (with its communicator) for the abort, instead of being torn down while peers wait.
    std::optional<transport> t;
    try {
        t.emplace(comm);
        if constexpr (std::is_void_v<result>) {
            fn(*t);
            t->barrier();
        } else {
            result r = fn(*t);
            t->barrier();
            return r;
        }
    } catch (const std::exception& e) {
        detail::fail(t ? t->native() : MPI_Comm(comm), comm.rank(), e.what());
    } catch (...) {
        detail::fail(t ? t->native() : MPI_Comm(comm), comm.rank(), "an exception that is not a std::exception");
    }
}

/// Starts MPI if needed (initialize()) and runs `fn` on this process's rank of MPI_COMM_WORLD.
/// @code
///   int main() {   // mpirun -np 4 ./my_benchmark
///       comet::mpi::run([](comet::mpi::transport& t) {
///           comet::result_set r = comet::pairwise(t, {.sizes = {1024, 65536}});
///           for (const comet::record& x : r.records)   // on rank 0, the test node
///               std::printf("%s: %.2f us\n", x.kernel.c_str(), x.samples.front() * 1e6);
///       });
///   }
/// @endcode
template <class F>
auto run(F&& fn) -> std::invoke_result_t<F&, transport&> {
    initialize();
    return run(boost::mpi::communicator{}, std::forward<F>(fn));
}

}  // namespace comet::mpi
