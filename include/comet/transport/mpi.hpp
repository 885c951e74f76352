// comet/transport/mpi.hpp — the MPI transport (SPEC 4.2): each rank is a process of an MPI job.
// Thin by design: every operation is the one MPI call named beside it, so what a kernel
// measures on it is MPI's, not a protocol of comet's. Not part of comet/comet.hpp: it needs an
// MPI library; link the comet::mpi CMake target.
//
//   comet::mpi::run([](comet::mpi::transport& t) { ... });      // under mpirun -np P
//
// What each member calls (MPI-3.1 section in brackets):
//   isend irecv test iprobe now     MPI_Isend MPI_Irecv MPI_Test MPI_Iprobe MPI_Wtime [3.7, 3.8.1, 8.6]
//   send recv wait wait_all         MPI_Send MPI_Recv MPI_Wait MPI_Waitall          [3.2, 3.7.3, 3.7.5]
//                                   (send to oneself: MPI_Isend of a copy, see below)
//   ssend issend rsend irsend       MPI_Ssend MPI_Issend MPI_Rsend MPI_Irsend      [3.4, 3.7.2]
//   bsend                           MPI_Bsend, into a buffer the transport attaches  [3.4, 3.6]
//   sendrecv                        MPI_Sendrecv                                    [3.10]
//   barrier broadcast gather        MPI_Barrier MPI_Bcast MPI_Gather                [5.3, 5.4, 5.5]
//   allreduce_sum / _max / _min     MPI_Allreduce, MPI_DOUBLE, in place             [5.9.6]
//   reduce_sum / _max / _min        MPI_Reduce, MPI_DOUBLE, in place at the root    [5.9.1]
//   alltoall                        MPI_Alltoall                                    [5.8]
//   ibarrier ibroadcast iallreduce_sum  MPI_Ibarrier MPI_Ibcast MPI_Iallreduce      [5.12]
//   progress                        MPI_Iprobe on any source and tag (drives MPI's progress engine)
//   clock_is_global                 the MPI_WTIME_IS_GLOBAL attribute               [8.1.2]
//   abort                           prints "comet: rank R: <message>", MPI_Abort     [8.7]
// Matching, non-overtaking, progress and buffering are MPI's own. In particular `send` is a
// standard send: it may wait for the matching receive (MPI's eager limit decides when), so two
// ranks that both `send` a large message first deadlock, as they would in MPI.
//
// Sending to oneself. `send(rank(), ...)` followed by `recv(rank(), ...)` works for every size:
// the transport copies the message and starts MPI_Isend on the copy, which it keeps until MPI
// has sent it (it frees the copies sent so far at the next send to itself, and leaks, on
// purpose, any still unreceived when it is destroyed). MPI_Send to oneself returns only once
// MPI has buffered the message or the receive has matched it, and that receive can only be
// posted afterwards by the same caller: an "unsafe" program (MPI-3.1 §3.5) that works while
// MPI sends eagerly — Open MPI 4.1's `self` path up to 968 bytes — and waits forever beyond.
// The copy costs only such sends (one compare on every other); no kernel times a message to
// its own rank. `ssend` to oneself still needs a receive posted beforehand (irecv), as in MPI.
//
// `bsend` is MPI_Bsend, MPI's buffered mode: a copy into a buffer attached to the process
// (MPI_Buffer_attach), sent from there. The transport attaches one on the first `bsend` (unless
// the program attached its own, which is then used) and never lets MPI_Bsend find it full: MPI
// does not say when a buffered message has left, so the transport counts every byte buffered since
// it attached (message, MPI_BSEND_OVERHEAD and alignment) and, when the next message would not fit
// that count, detaches — which waits until the messages buffered so far have been sent, as MPI
// says — and attaches again, larger if the message needs it. (A failed MPI_Bsend is not an error
// one can recover from: Open MPI 4.1's ob1 has then spent the message's sequence number, and the
// peer waits for it forever.) A kernel that knows what it will buffer reserves it beforehand,
// outside its timing (`reserve_bsend`). Since MPI_Bsend is a mode of its own and not how MPI's
// sends behave, the transport says `bsend_copies`: kernels in which both ranks send first use
// MPI_Sendrecv, not MPI_Bsend (kernels/swap.hpp). Application code that wants NX/2's csend
// semantics on every send wraps the transport in `comet::buffered`
// (comet/transport/decorators/buffered.hpp).
//
// The communicator. A transport works on a duplicate (MPI_Comm_dup) of the communicator it is
// given, so comet's messages never match the application's receives nor the application's
// messages comet's. The duplicate has MPI_ERRORS_RETURN: an MPI error becomes a comet::error
// "rank R: <call>: <MPI's text>" instead of ending the job.
//
// Checks. Before MPI is called, a rank out of range, a tag outside 0..max_tag or a message over
// max_message_size raises invalid_argument naming the value and "rank R: " — a few integer
// compares, nothing measurable next to MPI. MPI_ERR_TRUNCATE from any receive raises
// truncation_error naming this rank, the receive's source and tag, the message's size (Open
// MPI reports it in the status; an MPI that reports only the bytes received is named as such)
// and the buffer's.
//
// Truncation and Open MPI 4.1 (measured on the development machine, Open MPI 4.1.4, 2 ranks on
// one node). A message longer than its receive buffer is written whole, past the buffer's end,
// before MPI_ERR_TRUNCATE is reported, whenever it travels by rendezvous over an RDMA-like path:
// a 4 KiB message into a 100-byte buffer wrote 3,996 bytes past it, 1 MiB into 1,000 bytes
// wrote 1,047,576 — the same through MPI_Recv, MPI_Irecv and MPI_Mrecv, through vader's
// single-copy path (CMA, process_vm_readv), through the `self` path (a message to oneself, even
// with single copy off) and through tcp at 64 KiB and above. Eager messages (under about 4 KiB
// on vader) are truncated correctly, and so is everything on vader with single copy off
// (OMPI_MCA_btl_vader_single_copy_mechanism=none, its copy-in/copy-out pipeline). The MPI
// standard allows none of it (the buffer is `count` elements, MPI-3.1 §3.2.4).
// The development machine (a 2-core VM, no seccomp filter) allows CMA: a 1 MiB ping-pong ran
// with it and with single copy off at the same speed within the VM's noise. So the tests use
// it wherever process_vm_readv works (test/mpi/tests.cmake checks), and the conformance check
// that receives 100,000 bytes into 10 runs on the thin transport only with single copy off:
// with CMA it corrupts the heap ("free(): invalid size").
// The transport cannot make MPI_Recv safe without knowing the size first, which takes a probe:
// `options{.guard_truncation = true}` receives every message through a matched probe
// (MPI_Mprobe/MPI_Improbe then MPI_Mrecv/MPI_Imrecv; comet/transport/mpi/guard.hpp), so a
// message that does not fit is received into scratch storage and reported, never written into
// the buffer. It costs what a probe costs: measured against MPI_Recv in a ping-pong, +10% at
// 8 bytes (~24 ns: the message becomes "unexpected" and is copied twice), +1% at 4 KiB,
// nothing measurable from 64 KiB. And since MPI cannot see a guarded receive that waits for
// its message, the transport's blocking calls run as their nonblocking twins, polled, while
// one waits (so a peer blocked sending to it is not left waiting). It is off by default, so
// that measurements are MPI's; turn it on for application code that may receive into too
// small a buffer on such an MPI.
//
// Watchdog (`options{.watchdog_s = 5}`, off by default). MPI reports no deadlock: a rank blocked
// for a message that never comes waits until the job is killed. With the watchdog on, every
// blocking operation of the transport (send, recv, wait, wait_all, sendrecv, ssend, rsend and
// the blocking collectives, and run's closing barrier) runs as its nonblocking twin polled with
// MPI_Test; one blocked longer than the limit prints
//   comet: rank 0: watchdog: blocked for 5 s in recv from rank 1 (tag 4, up to 16 bytes); ending the job
// and ends the job with MPI_Abort, after a grace period in which the other blocked ranks print
// theirs (comet/transport/mpi/watchdog.hpp). Polling is not what a measurement should time;
// leave it off when measuring. Not watched: MPI_Buffer_detach in `bsend` (which waits for the
// messages buffered before), and a pending request's destructor.
//
// Collective arguments (`options{.check_collectives = true}`, off by default). MPI leaves a
// collective whose ranks pass different sizes or roots erroneous and undetected (MPI-3.1 §5.1):
// on Open MPI 4.1, a broadcast whose root passes more bytes than the others writes past their
// buffers, and one whose root passes fewer leaves them partly written, unreported. With the
// check on, broadcast, the reductions, gather and alltoall first compare every rank's root and
// size in one MPI_Allreduce and, if they differ, every rank raises invalid_argument naming the
// two extremes and the ranks that passed them. That allreduce is a message MPI's collective does
// not send, so measurements leave the check off. Nonblocking collectives are not checked (a
// blocking comparison would change when they return).
//
// Requests. `request` is move-only and owns one MPI_Request. `test`/`wait` on a default or
// completed request return a default status at once; a completed send reports {destination,
// tag, size}, a receive what MPI_Status says, a collective a default status. A request dropped
// while pending: a receive is cancelled (MPI_Cancel, then MPI_Wait: if a message had matched
// it already, it is received into the buffer first); a send or nonblocking collective is
// completed (MPI_Wait: the buffer is the caller's, and MPI may still read it) — except while an
// exception unwinds, when a send is handed to MPI (MPI_Request_free) and a collective left as
// it is, since `run` then ends the job.
//
// Progress is MPI's: with Open MPI, nothing moves while a rank computes without calling MPI.
// `progress()` calls MPI_Iprobe, which runs Open MPI's progress engine. Time: MPI_Wtime,
// global when MPI_WTIME_IS_GLOBAL says so. One thread per transport (MPI_THREAD_SINGLE).
// `abort`, and an exception escaping `run`'s function, print "comet: rank R: <message>" and
// call MPI_Abort, which ends every process of the job with a non-zero status: no rank is left
// waiting.
#pragma once

#include <comet/core/checks.hpp>
#include <comet/core/concepts.hpp>
#include <comet/core/preemptions.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/guard.hpp>
#include <comet/transport/mpi/watchdog.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <cmath>
#include <limits>
#include <list>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace comet::mpi {

class transport;

/// How a transport is set up (all optional). @pre every rank of the communicator passes the
/// same options: with the guard or the watchdog on, collectives run as their nonblocking twins,
/// which MPI matches only with nonblocking collectives.
struct options {
    /// Receive every message through a matched probe, so that one longer than its buffer is
    /// never written into it (see the top of this header: Open MPI 4.1 writes past the buffer on
    /// rendezvous paths). Costs about 24 ns a receive (+10% on an 8-byte ping-pong, +1% at
    /// 4 KiB, nothing measurable from 64 KiB); off by default so that measurements are MPI's.
    bool guard_truncation = false;
    /// Seconds a blocking operation may wait before the watchdog ends the job, naming the rank,
    /// the operation and its peer (comet/transport/mpi/watchdog.hpp); 0, the default, is off.
    /// Waiting for a peer that computes counts too: set it above the longest wait of a correct
    /// run.
    /// On, every blocking operation is its nonblocking twin polled with MPI_Test, which is not
    /// what a measurement should time: leave it off when measuring.
    double watchdog_s = 0;
    /// Before each blocking collective whose ranks must agree on a root or a size (broadcast,
    /// the reductions, gather, alltoall), the ranks compare them in one MPI_Allreduce, and every
    /// rank raises invalid_argument naming the sizes that differ and the ranks that passed them,
    /// instead of letting MPI run an erroneous collective (MPI-3.1 §5.1: a larger root's
    /// broadcast writes past the others' buffers on Open MPI 4.1, a smaller one leaves them
    /// partly filled, unreported). It costs that allreduce on every such collective, so it is
    /// off by default: a measured collective is MPI's alone.
    bool check_collectives = false;
    /// Report the operating system's preemptions of a rank as its disturbances (transport::
    /// disturbances), so that the measurement engines keep a sample during which a rank lost
    /// its CPU out of the statistics. Only where this host runs no more of the communicator's
    /// ranks than the process may use CPUs: with more, ranks take the CPU from each other all
    /// the time, and that is the run's own cost, not a disturbance of it.
    bool count_preemptions = true;
};

namespace detail {

/// The buffer MPI_Bsend copies into, one per process (MPI attaches one per process, MPI-3.1
/// §3.6). Deliberately never freed: MPI_Finalize detaches it, after every static destructor a
/// program may run MPI_Finalize from.
struct bsend_buffer {
    std::byte* storage = nullptr;
    std::size_t capacity = 0;
    std::size_t used = 0;   ///< bytes buffered since comet attached it (an upper bound on those in it)
    bool ours = false;      ///< attached by comet (else the program attached its own, or none yet)
    bool looked = false;    ///< the first bsend has tried to attach one
};
inline bsend_buffer& the_bsend_buffer() {
    static bsend_buffer* b = new bsend_buffer;
    return *b;
}

/// MPI counts are int; a receive buffer beyond that can only ever hold that much.
inline int count_of(std::size_t n) noexcept { return static_cast<int>(std::min(n, max_message_size)); }

inline int mpi_source(int source) noexcept { return source == any_source ? MPI_ANY_SOURCE : source; }
inline int mpi_tag(int tag) noexcept { return tag == any_tag ? MPI_ANY_TAG : tag; }

inline status status_of(const MPI_Status& st) noexcept {
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    return status{st.MPI_SOURCE, st.MPI_TAG, static_cast<std::size_t>(n < 0 ? 0 : n)};
}

/// True while MPI can be called (a request may outlive MPI_Finalize in a careless program).
inline bool mpi_running() noexcept {
    int running = 0, finished = 0;
    MPI_Initialized(&running);
    MPI_Finalized(&finished);
    return running && !finished;
}

/// Waits for every process of `comm` to arrive, sleeping a millisecond between looks: processes
/// outside the group being measured must leave the cores to it (MPI_Barrier spins in most
/// libraries, and a job may have more processes than cores). Collective.
inline void wait_quietly(MPI_Comm comm) {
    MPI_Request done = MPI_REQUEST_NULL;
    MPI_Ibarrier(comm, &done);
    for (int finished = 0;;) {
        MPI_Test(&done, &finished, MPI_STATUS_IGNORE);
        if (finished) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

}  // namespace detail

/// A nonblocking operation of the MPI transport: one MPI_Request. Move-only. Dropped while
/// pending, a receive is cancelled and a send or collective completed (see the top of this
/// header).
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

    /// True while the operation has started and its completion has not been collected.
    bool pending() const noexcept { return kind_ != kind::none; }

private:
    friend class transport;
    enum class kind : unsigned char { none, send, recv, collective, guarded };

    void take(request& o) noexcept {
        mpi_ = std::exchange(o.mpi_, MPI_REQUEST_NULL);
        kind_ = std::exchange(o.kind_, kind::none);
        peer_ = o.peer_;
        tag_ = o.tag_;
        size_ = o.size_;
        guarded_ = std::move(o.guarded_);
        guard_ = std::exchange(o.guard_, nullptr);
    }
    inline void release() noexcept;

    MPI_Request mpi_ = MPI_REQUEST_NULL;
    kind kind_ = kind::none;
    int peer_ = 0;          ///< a send's destination, a receive's source (as the caller gave them)
    int tag_ = 0;           ///< its tag
    std::size_t size_ = 0;  ///< a send's size, a receive's buffer size
    std::unique_ptr<detail::guarded_recv> guarded_;  ///< a receive of a guarded transport
    detail::receive_guard* guard_ = nullptr;         ///< ... and the queue it waits in
};

/// One rank's endpoint: one process of an MPI job, on a duplicate of a communicator. Every
/// member is called from the thread that drives MPI in this process.
/// @code
///   comet::mpi::initialize();
///   comet::mpi::transport t(boost::mpi::communicator{});        // MPI_COMM_WORLD, duplicated
///   comet::result_set r = comet::kernels::echo(t, {.sizes = {8, 1024}});
/// @endcode
class transport {
public:
    using request = mpi::request;

    /// Duplicates `comm` (collective over it: every rank of `comm` constructs at once).
    /// @throws invalid_argument if `comm` is a null communicator; error if MPI is not running.
    /// @throws invalid_argument if options::watchdog_s is negative or not a number.
    explicit transport(const boost::mpi::communicator& comm, options o = {})
        : guarded_(o.guard_truncation), check_collectives_(o.check_collectives), watchdog_s_(o.watchdog_s) {
        if (!boost::mpi::environment::initialized() || boost::mpi::environment::finalized())
            raise<error>(-1, "mpi::transport: MPI is not running (call comet::mpi::initialize() or use comet::mpi::run)");
        const MPI_Comm user = comm;
        if (user == MPI_COMM_NULL) raise<invalid_argument>(-1, "mpi::transport: the communicator is MPI_COMM_NULL");
        if (!(watchdog_s_ >= 0) || std::isinf(watchdog_s_))
            raise<invalid_argument>(comm.rank(), "mpi::transport: watchdog_s ", watchdog_s_,
                                    " is not a number of seconds (0 turns the watchdog off)");
        watched_ = watchdog_s_ > 0;
        detail::check(MPI_Comm_dup(user, &comm_), -1, "mpi::transport: MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
        guard_.bind(comm_);
        int* global = nullptr;  // an attribute of MPI_COMM_WORLD only
        int found = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
        clock_is_global_ = found && global && *global != 0;
        if (o.count_preemptions) {
            // This host's ranks of the communicator (collective, as the duplication above).
            MPI_Comm here = MPI_COMM_NULL;
            int local = 1;
            if (MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &here) == MPI_SUCCESS) {
                MPI_Comm_size(here, &local);
                MPI_Comm_free(&here);
            }
            counts_preemptions_ = local <= usable_cpu_count(local);
        }
    }
    transport(const transport&) = delete;
    transport& operator=(const transport&) = delete;

    /// Frees the duplicate communicator (MPI_Comm_free: collective, and operations still
    /// pending on it complete first). Requests should be gone before.
    ~transport() {
        if (!detail::mpi_running()) return;
        collect_self_sends();
        // A message sent to this rank itself and never received: MPI may still read its copy.
        if (!self_sends_.empty()) new std::list<self_send>(std::move(self_sends_));  // deliberately leaked
        if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    /// The duplicate communicator comet's messages travel on.
    MPI_Comm native() const noexcept { return comm_; }
    /// Whether receives go through the truncation guard (options::guard_truncation).
    bool guards_truncation() const noexcept { return guarded_; }
    /// The watchdog's limit in seconds (options::watchdog_s; 0: off).
    double watchdog_s() const noexcept { return watchdog_s_; }
    /// Whether collectives compare their roots and sizes first (options::check_collectives).
    bool checks_collectives() const noexcept { return check_collectives_; }

    // ---- the point-to-point core ----

    /// MPI_Isend.
    request isend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "isend");
        request r = started(request::kind::send, dest, tag, data.size());
        detail::check(MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_, &r.mpi_), rank_,
                      "isend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Isend");
        return r;
    }

    /// MPI_Irecv (or, guarded, a receive matched by probe).
    request irecv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "irecv");
        if (guarded_) return guarded_irecv(source, tag, buffer);
        request r = started(request::kind::recv, source, tag, buffer.size());
        detail::check(MPI_Irecv(buffer.data(), detail::count_of(buffer.size()), MPI_BYTE, detail::mpi_source(source),
                                detail::mpi_tag(tag), comm_, &r.mpi_),
                      rank_, "irecv from ", source_name{source}, " (", tag_name{tag}, "): MPI_Irecv");
        return r;
    }

    /// MPI_Test.
    std::optional<status> test(request& r) {
        switch (r.kind_) {
        case request::kind::none:
            return status{};
        case request::kind::guarded:
            return test_guarded(r);
        default:
            break;
        }
        // A send to this rank (or polled while a message it waits for sits unmatched) completes
        // only once a waiting guarded receive has taken its message: give them the chance.
        if (guarded_ && !guard_.idle()) guard_.match();
        int done = 0;
        MPI_Status st;
        const int rc = MPI_Test(&r.mpi_, &done, &st);
        if (rc != MPI_SUCCESS) [[unlikely]]
            failed(r, rc, st, "test");
        if (!done) return std::nullopt;
        return completed(r, st);
    }

    /// MPI_Iprobe: the status of the earliest matching message that has arrived, if any.
    std::optional<status> iprobe(int source, int tag) {
        check_recv(source, tag, "iprobe");
        for (;;) {
            if (guarded_ && !guard_.idle()) guard_.match();  // a waiting receive takes its message first
            int found = 0;
            MPI_Status st;
            detail::check(MPI_Iprobe(detail::mpi_source(source), detail::mpi_tag(tag), comm_, &found, &st), rank_,
                          "iprobe from ", source_name{source}, " (", tag_name{tag}, "): MPI_Iprobe");
            if (!found) return std::nullopt;
            // Arrived after the pass, and a waiting receive's (as it would be an MPI receive's):
            // the next pass gives it to that receive.
            if (guarded_ && guard_.would_take(st.MPI_SOURCE, st.MPI_TAG)) continue;
            return detail::status_of(st);
        }
    }

    /// Deprecated name of `iprobe` (it never blocked, unlike MPI_Probe); kept for one release.
    [[deprecated("probe is nonblocking: call iprobe")]] std::optional<status> probe(int source, int tag) {
        return iprobe(source, tag);
    }

    /// MPI_Wtime, in seconds.
    double now() const noexcept { return MPI_Wtime(); }
    /// How often the operating system took the CPU from this rank's thread so far (its
    /// involuntary context switches: core/preemptions.hpp); the measurement engines keep a
    /// sample during which that happened to a rank out of the statistics.
    std::uint64_t disturbances() const noexcept { return counts_preemptions_ ? involuntary_switches() : 0; }

    // ---- native operations ----

    /// MPI_Send: a standard send, which may wait for the matching receive. A send to this rank
    /// itself returns at once: it is an MPI_Isend of a copy (see the top of this header).
    void send(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "send");
        if (dest == rank_) [[unlikely]]
            return send_to_self(tag, data);
        const int count = static_cast<int>(data.size());
        int rc = MPI_SUCCESS;
        if (polls()) [[unlikely]]
            rc = blocking(MPI_Isend(data.data(), count, MPI_BYTE, dest, tag, comm_, &scratch_),
                          {"send", detail::blocked_op::shape::to, dest, tag, data.size()});
        else
            rc = MPI_Send(data.data(), count, MPI_BYTE, dest, tag, comm_);
        detail::check(rc, rank_, "send to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
    }

    /// MPI_Recv (or, guarded, MPI_Mprobe + MPI_Mrecv).
    status recv(int source, int tag, mutable_bytes buffer) {
        check_recv(source, tag, "recv");
        if (guarded_) return guarded_recv(source, tag, buffer, "recv");
        if (watched_) [[unlikely]]
            return polled_recv(source, tag, buffer, "recv");
        MPI_Status st;
        const int rc = MPI_Recv(buffer.data(), detail::count_of(buffer.size()), MPI_BYTE, detail::mpi_source(source),
                                detail::mpi_tag(tag), comm_, &st);
        if (rc != MPI_SUCCESS) [[unlikely]]
            receive_failed("recv", source, tag, buffer.size(), rc, st);
        return detail::status_of(st);
    }

    /// MPI_Wait.
    status wait(request& r) {
        switch (r.kind_) {
        case request::kind::none:
            return status{};
        case request::kind::guarded:
            return wait_guarded(r);
        default:
            break;
        }
        MPI_Status st;
        const int rc = polls() ? complete(r.mpi_, st, waited_for(r)) : MPI_Wait(&r.mpi_, &st);
        if (rc != MPI_SUCCESS) [[unlikely]]
            failed(r, rc, st, "wait");
        return completed(r, st);
    }

    /// MPI_Waitall over the span (guarded or watched: each waited in turn). Raises the first
    /// error; the requests that did not complete stay pending.
    void wait_all(std::span<request> requests) {
        if (guarded_ || watched_) {
            for (request& r : requests) wait(r);
            return;
        }
        handles_.clear();
        for (const request& r : requests) handles_.push_back(r.mpi_);
        statuses_.resize(handles_.size());
        const int rc = MPI_Waitall(static_cast<int>(handles_.size()), handles_.data(), statuses_.data());
        std::size_t first_error = requests.size();
        for (std::size_t i = 0; i < requests.size(); ++i) {
            request& r = requests[i];
            r.mpi_ = handles_[i];
            if (rc == MPI_ERR_IN_STATUS && statuses_[i].MPI_ERROR != MPI_SUCCESS) {
                if (statuses_[i].MPI_ERROR != MPI_ERR_PENDING && first_error == requests.size()) first_error = i;
                continue;
            }
            if (r.mpi_ == MPI_REQUEST_NULL) r.kind_ = request::kind::none;
        }
        if (rc == MPI_SUCCESS) return;
        if (first_error < requests.size()) failed(requests[first_error], statuses_[first_error].MPI_ERROR, statuses_[first_error], "wait_all");
        detail::check(rc, rank_, "wait_all: MPI_Waitall");
    }

    /// MPI_Barrier.
    void barrier() {
        const int rc = collective_polls() ? blocking(MPI_Ibarrier(comm_, &scratch_), {"barrier"}) : MPI_Barrier(comm_);
        detail::check(rc, rank_, "barrier");
    }

    /// MPI_Bcast of `data` from `root`. @pre every rank passes the same root and size
    /// (checked with options::check_collectives).
    void broadcast(int root, mutable_bytes data) {
        check_rank(root, "broadcast root");
        check_size(data.size(), "broadcast");
        if (check_collectives_) agree("broadcast", root, data.size(), "bytes");
        const int count = static_cast<int>(data.size());
        const int rc = collective_polls() ? blocking(MPI_Ibcast(data.data(), count, MPI_BYTE, root, comm_, &scratch_),
                                          {"broadcast", detail::blocked_op::shape::root, root, 0, data.size(), "bytes"})
                               : MPI_Bcast(data.data(), count, MPI_BYTE, root, comm_);
        detail::check(rc, rank_, "broadcast from rank ", root, " (", data.size(), " bytes)");
    }

    /// MPI_Allreduce(MPI_SUM) in place. Every rank gets the same bits: MPI's reduction
    /// algorithms compute each element once and hand it around, or combine partners' values
    /// pairwise (a + b and b + a are the same double), so no rank sums in another order.
    void allreduce_sum(std::span<double> values) { allreduce(values, MPI_SUM, "allreduce_sum"); }
    /// MPI_Allreduce(MPI_MAX) in place.
    void allreduce_max(std::span<double> values) { allreduce(values, MPI_MAX, "allreduce_max"); }
    /// MPI_Allreduce(MPI_MIN) in place.
    void allreduce_min(std::span<double> values) { allreduce(values, MPI_MIN, "allreduce_min"); }

    /// MPI_Reduce(MPI_SUM) onto `root`, in place there (MPI_IN_PLACE); the other ranks' values
    /// are only read. MPI chooses the order of the additions (Open MPI by count and group
    /// size), so a sum that rounds need not have the bits of comet's portable tree, though one
    /// MPI gives the same bits for the same call. @pre every rank passes the same root and
    /// number of values.
    void reduce_sum(int root, std::span<double> values) {
        check_rank(root, "reduce_sum root");
        reduce(root, values, MPI_SUM, "reduce_sum");
    }
    /// MPI_Reduce(MPI_MAX) onto `root`, in place there.
    void reduce_max(int root, std::span<double> values) {
        check_rank(root, "reduce_max root");
        reduce(root, values, MPI_MAX, "reduce_max");
    }
    /// MPI_Reduce(MPI_MIN) onto `root`, in place there.
    void reduce_min(int root, std::span<double> values) {
        check_rank(root, "reduce_min root");
        reduce(root, values, MPI_MIN, "reduce_min");
    }

    /// MPI_Gather of every rank's `mine` into `all` on `root`, in rank order. `all` must hold
    /// exactly size() * mine.size() bytes on the root, as comet's portable gather asks (a
    /// buffer of another size is taken for a wrong block size); it is not touched elsewhere.
    /// @pre every rank passes the same root and the same mine.size().
    void gather(int root, const_bytes mine, mutable_bytes all) {
        check_rank(root, "gather root");
        check_size(mine.size(), "gather");
        const std::size_t need = mine.size() * static_cast<std::size_t>(size_);
        if (rank_ == root && all.size() != need)
            raise<invalid_argument>(rank_, "gather: the root's buffer holds ", all.size(), " bytes where ", size_, " blocks of ",
                                    mine.size(), " need ", need);
        if (check_collectives_) agree("gather", root, mine.size(), "bytes each");
        const int count = static_cast<int>(mine.size());
        std::byte* into = rank_ == root ? all.data() : nullptr;
        const int rc = collective_polls() ? blocking(MPI_Igather(mine.data(), count, MPI_BYTE, into, count, MPI_BYTE, root, comm_, &scratch_),
                                          {"gather", detail::blocked_op::shape::root, root, 0, mine.size(), "bytes each"})
                               : MPI_Gather(mine.data(), count, MPI_BYTE, into, count, MPI_BYTE, root, comm_);
        detail::check(rc, rank_, "gather to rank ", root, " (", mine.size(), " bytes each)");
    }

    /// MPI_Alltoall of size() blocks of out.size() / size() bytes: block r of `out` goes to
    /// rank r, block r of `in` (the same size as `out`) receives rank r's. @pre every rank
    /// passes the same block size; `out` and `in` do not overlap.
    void alltoall(const_bytes out, mutable_bytes in) {
        const auto p = static_cast<std::size_t>(size_);
        if (out.size() % p != 0)
            raise<invalid_argument>(rank_, "alltoall: the send buffer's ", out.size(), " bytes are not ", size_, " equal blocks");
        const std::size_t n = out.size() / p;
        if (in.size() != out.size())
            raise<invalid_argument>(rank_, "alltoall: the receive buffer holds ", in.size(), " bytes where ", size_,
                                    " blocks of ", n, " need ", out.size());
        check_size(n, "alltoall");
        if (check_collectives_) agree("alltoall", -1, n, "bytes to each rank");
        const int count = static_cast<int>(n);
        const int rc = collective_polls() ? blocking(MPI_Ialltoall(out.data(), count, MPI_BYTE, in.data(), count, MPI_BYTE, comm_, &scratch_),
                                          {"alltoall", detail::blocked_op::shape::all, 0, 0, n, "bytes to each rank"})
                               : MPI_Alltoall(out.data(), count, MPI_BYTE, in.data(), count, MPI_BYTE, comm_);
        detail::check(rc, rank_, "alltoall (", n, " bytes to each rank)");
    }

    /// Performs `w` on this CPU (comet::perform).
    void compute(const work& w) { perform(w); }

    /// MPI_WTIME_IS_GLOBAL: whether every process's MPI_Wtime reads the same clock.
    bool clock_is_global() const noexcept { return clock_is_global_; }

    /// Prints "comet: rank R: <message>" on stderr and ends the whole job (MPI_Abort, status 1).
    [[noreturn]] void abort(std::string_view message) { detail::fail(comm_, rank_, message); }

    // ---- optional capabilities ----

    /// MPI_Ssend: completes once the receiver has started receiving the message.
    void ssend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "ssend");
        const int count = static_cast<int>(data.size());
        const int rc = polls() ? blocking(MPI_Issend(data.data(), count, MPI_BYTE, dest, tag, comm_, &scratch_),
                                          {"ssend", detail::blocked_op::shape::to, dest, tag, data.size()})
                               : MPI_Ssend(data.data(), count, MPI_BYTE, dest, tag, comm_);
        detail::check(rc, rank_, "ssend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
    }
    /// MPI_Bsend: copies `data` into the attached buffer and returns; MPI sends it from there.
    /// The first call attaches a buffer (unless the program has its own attached). A message
    /// that would not fit beside those buffered since the attach is sent as a copy of its own by
    /// MPI_Isend instead: making room would mean MPI_Buffer_detach, which waits until the
    /// buffered messages are received, and a buffered send never waits for a receiver. Kernels
    /// that time bsend call `reserve_bsend` first, outside their timing, so their messages go by
    /// MPI_Bsend.
    void bsend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "bsend");
        if (const detail::bsend_buffer& b = detail::the_bsend_buffer(); b.ours && b.used + bsend_charge(data.size()) > b.capacity) {
            send_copy(dest, tag, data, "bsend");
            return;
        }
        make_bsend_room(1, data.size());
        const int rc = MPI_Bsend(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_);
        if (rc != MPI_SUCCESS) {
            int cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            if (cls == MPI_ERR_BUFFER)  // only a buffer the program attached can be full
                raise<error>(rank_, "bsend to rank ", dest, " (tag ", tag, ", ", data.size(),
                             " bytes): the buffer the program attached (MPI_Buffer_attach) is full");
        }
        detail::check(rc, rank_, "bsend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Bsend");
        detail::the_bsend_buffer().used += bsend_charge(data.size());
    }

    /// Makes room for `messages` buffered sends totalling `bytes` before they are made, so that
    /// none of them waits in `bsend` for earlier ones: a kernel calls it outside its timing. It
    /// may wait for the messages buffered so far to be sent (MPI_Buffer_detach).
    void reserve_bsend(std::size_t messages, std::size_t bytes) { make_bsend_room(messages, bytes); }

    /// MPI_Bsend is MPI's buffered mode, a copy MPI's other sends do not make: kernels whose
    /// ranks both send first swap by MPI_Sendrecv instead (core/concepts.hpp, buffering_transport).
    static constexpr bool bsend_copies = true;

    /// MPI_Issend.
    request issend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "issend");
        request r = started(request::kind::send, dest, tag, data.size());
        detail::check(MPI_Issend(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_, &r.mpi_), rank_,
                      "issend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Issend");
        return r;
    }

    /// MPI_Rsend. @pre the matching receive is already posted at `dest` (MPI-3.1 §3.4: otherwise
    /// the program is erroneous, and MPI need not detect it).
    void rsend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "rsend");
        const int count = static_cast<int>(data.size());
        const int rc = polls() ? blocking(MPI_Irsend(data.data(), count, MPI_BYTE, dest, tag, comm_, &scratch_),
                                          {"rsend", detail::blocked_op::shape::to, dest, tag, data.size()})
                               : MPI_Rsend(data.data(), count, MPI_BYTE, dest, tag, comm_);
        detail::check(rc, rank_, "rsend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes)");
    }
    /// MPI_Irsend. @pre as rsend.
    request irsend(int dest, int tag, const_bytes data) {
        check_send(dest, tag, data.size(), "irsend");
        request r = started(request::kind::send, dest, tag, data.size());
        detail::check(MPI_Irsend(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_, &r.mpi_), rank_,
                      "irsend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Irsend");
        return r;
    }

    /// MPI_Sendrecv: sends `out` to `dest` and receives into `in` from `source`; two ranks that
    /// sendrecv with each other never deadlock. Returns the receive's status. (Guarded: MPI_Isend,
    /// the guarded receive, MPI_Wait; watched: MPI_Isend, MPI_Irecv, each polled.)
    status sendrecv(int dest, int send_tag, const_bytes out, int source, int recv_tag, mutable_bytes in) {
        check_send(dest, send_tag, out.size(), "sendrecv");
        check_recv(source, recv_tag, "sendrecv");
        if (guarded_ || watched_) {
            request s = isend(dest, send_tag, out);
            const status got = guarded_ ? guarded_recv(source, recv_tag, in, "sendrecv") : polled_recv(source, recv_tag, in, "sendrecv");
            wait(s);
            return got;
        }
        MPI_Status st;
        const int rc = MPI_Sendrecv(out.data(), static_cast<int>(out.size()), MPI_BYTE, dest, send_tag, in.data(),
                                    detail::count_of(in.size()), MPI_BYTE, detail::mpi_source(source), detail::mpi_tag(recv_tag),
                                    comm_, &st);
        if (rc != MPI_SUCCESS) [[unlikely]]
            receive_failed("sendrecv", source, recv_tag, in.size(), rc, st);
        return detail::status_of(st);
    }

    /// MPI_Ibarrier.
    request ibarrier() {
        request r = started(request::kind::collective, 0, 0, 0);
        detail::check(MPI_Ibarrier(comm_, &r.mpi_), rank_, "ibarrier: MPI_Ibarrier");
        return r;
    }
    /// MPI_Ibcast. @pre as broadcast.
    request ibroadcast(int root, mutable_bytes data) {
        check_rank(root, "ibroadcast root");
        check_size(data.size(), "ibroadcast");
        request r = started(request::kind::collective, root, 0, data.size());
        detail::check(MPI_Ibcast(data.data(), static_cast<int>(data.size()), MPI_BYTE, root, comm_, &r.mpi_), rank_,
                      "ibroadcast from rank ", root, " (", data.size(), " bytes): MPI_Ibcast");
        return r;
    }
    /// MPI_Iallreduce(MPI_SUM) in place.
    request iallreduce_sum(std::span<double> values) {
        check_size(values.size_bytes(), "iallreduce_sum");
        request r = started(request::kind::collective, 0, 0, values.size_bytes());
        detail::check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm_,
                                     &r.mpi_),
                      rank_, "iallreduce_sum: MPI_Iallreduce");
        return r;
    }

    /// Lets MPI progress outstanding operations without completing any request: MPI_Iprobe on
    /// any source and tag, which runs the MPI library's progress engine (MPI has no progress
    /// call of its own). Guarded, it also matches waiting receives.
    void progress() {
        if (guarded_ && !guard_.idle()) guard_.match();
        int found = 0;
        detail::check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &found, MPI_STATUS_IGNORE), rank_, "progress: MPI_Iprobe");
    }

private:
    friend class mpi::request;

    /// What one buffered message of `bytes` takes of the attached buffer: MPI_BSEND_OVERHEAD
    /// and, for the allocator's alignment, 64 bytes more.
    static std::size_t bsend_charge(std::size_t bytes) noexcept {
        return bytes + static_cast<std::size_t>(MPI_BSEND_OVERHEAD) + 64;
    }

    /// Makes comet's attached buffer hold `messages` more messages totalling `bytes` beside
    /// those buffered since it was attached: attaches one (at least 4 MiB) on the first call, or
    /// detaches (waiting for the buffered messages to be sent) and attaches one large enough
    /// when they would not fit. A buffer the program attached is left as it is.
    void make_bsend_room(std::size_t messages, std::size_t bytes) {
        detail::bsend_buffer& b = detail::the_bsend_buffer();
        const std::size_t need = bytes + messages * bsend_charge(0);
        if (b.looked && (!b.ours || b.used + need <= b.capacity)) return;
        if (b.ours) {
            void* old = nullptr;
            int size = 0;
            detail::check(MPI_Buffer_detach(&old, &size), rank_, "bsend: MPI_Buffer_detach");
            b.used = 0;
            if (need <= b.capacity) {  // empty now, and large enough: attach it again
                detail::check(MPI_Buffer_attach(b.storage, static_cast<int>(b.capacity)), rank_, "bsend: MPI_Buffer_attach");
                return;
            }
            delete[] b.storage;
            b.storage = nullptr;
            b.ours = false;
        }
        const std::size_t capacity = std::max({need, b.capacity, std::size_t{4} << 20});
        if (capacity > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            raise<invalid_argument>(rank_, "bsend: ", messages, " messages of ", bytes, " bytes need a buffer of ", capacity,
                                    " bytes, over MPI's int limit");
        auto* storage = new std::byte[capacity];
        b.looked = true;
        // An attach that fails (a buffer is attached already) is reported on MPI_COMM_WORLD,
        // whose handler ends the job by default: returned for this one call.
        MPI_Errhandler world = MPI_ERRHANDLER_NULL;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        const int rc = MPI_Buffer_attach(storage, static_cast<int>(capacity));
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
        MPI_Errhandler_free(&world);
        if (rc != MPI_SUCCESS) {
            delete[] storage;  // the program attached its own: MPI_Bsend uses that one
            return;
        }
        b.storage = storage;
        b.capacity = capacity;
        b.used = 0;
        b.ours = true;
    }

    // ---- argument checks: one-line errors naming the value and this rank, before MPI sees it ----

    void check_rank(int r, const char* what) const { comet::detail::check_peer(rank_, size_, r, what); }
    void check_size(std::size_t size, const char* what) const {
        if (size > max_message_size) [[unlikely]]
            raise<invalid_argument>(rank_, what, ": message of ", size, " bytes exceeds the ", max_message_size, "-byte limit");
    }
    void check_send(int dest, int tag, std::size_t size, const char* what) const {
        comet::detail::check_send(rank_, size_, dest, tag, size, what);
    }
    void check_recv(int source, int tag, const char* what) const {
        comet::detail::check_recv(rank_, size_, source, tag, what);
    }

    /// "rank 3" or "any rank", "tag 7" or "any tag", formatted only when an error is printed.
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

    request started(request::kind k, int peer, int tag, std::size_t size) noexcept {
        request r;
        r.kind_ = k;
        r.peer_ = peer;
        r.tag_ = tag;
        r.size_ = size;
        if (guarded_) r.guard_ = &guard_;  // a dropped request keeps matching guarded receives while it waits
        return r;
    }

    /// The status of request `r`, which MPI has just completed; `r` is then empty.
    static status completed(request& r, const MPI_Status& st) noexcept {
        const request::kind k = std::exchange(r.kind_, request::kind::none);
        if (k == request::kind::send) return status{r.peer_, r.tag_, r.size_};
        if (k == request::kind::recv) return detail::status_of(st);
        return status{};
    }

    /// Request `r` failed with MPI error `rc`: it is over (MPI frees a request that completes in
    /// error), and the error is raised — truncation_error for a receive's MPI_ERR_TRUNCATE.
    [[noreturn]] void failed(request& r, int rc, const MPI_Status& st, const char* how) {
        const request::kind k = std::exchange(r.kind_, request::kind::none);
        if (r.mpi_ != MPI_REQUEST_NULL) MPI_Request_free(&r.mpi_);  // not completed by MPI: let it go
        if (k == request::kind::recv) receive_failed("irecv", r.peer_, r.tag_, r.size_, rc, st);
        if (k == request::kind::send)
            raise<error>(rank_, how, ": send to rank ", r.peer_, " (tag ", r.tag_, ", ", r.size_, " bytes): ", detail::error_text(rc));
        raise<error>(rank_, how, ": nonblocking collective: ", detail::error_text(rc));
    }

    /// A receive (what) from `source` with `tag` into `capacity` bytes failed with `rc`.
    [[noreturn]] void receive_failed(const char* what, int source, int tag, std::size_t capacity, int rc, const MPI_Status& st) const {
        if (detail::error_class(rc) == MPI_ERR_TRUNCATE) {
            const status got = detail::status_of(st);
            throw truncation_error(truncated(what, source, tag, got, capacity));
        }
        raise<error>(rank_, what, " from ", source_name{source}, " (", tag_name{tag}, "): ", detail::error_text(rc));
    }

    std::string truncated(const char* what, int source, int tag, const status& got, std::size_t capacity) const {
        // Open MPI's status counts the whole message; an MPI that counts only what it wrote
        // reports no more than the buffer, which says nothing of the message's size.
        if (got.size > capacity)
            return comet::detail::concat("rank ", rank_, ": ", what, " from ", source_name{source}, " (", tag_name{tag}, "): the ",
                                         got.size, "-byte message from rank ", got.source, " (tag ", got.tag, ") does not fit the ",
                                         capacity, "-byte buffer");
        return comet::detail::concat("rank ", rank_, ": ", what, " from ", source_name{source}, " (", tag_name{tag},
                                     "): a message from rank ", got.source, " (tag ", got.tag, ") is longer than the ", capacity,
                                     "-byte buffer (MPI_ERR_TRUNCATE; MPI did not report its size)");
    }

    void reduce(int root, std::span<double> values, MPI_Op op, const char* what) {
        check_size(values.size_bytes(), what);
        if (check_collectives_) agree(what, root, values.size(), "doubles");
        const int count = static_cast<int>(values.size());
        const void* from = rank_ == root ? MPI_IN_PLACE : values.data();
        double* into = rank_ == root ? values.data() : nullptr;
        const int rc = collective_polls() ? blocking(MPI_Ireduce(from, into, count, MPI_DOUBLE, op, root, comm_, &scratch_),
                                          {what, detail::blocked_op::shape::root, root, 0, values.size(), "doubles"})
                               : MPI_Reduce(from, into, count, MPI_DOUBLE, op, root, comm_);
        detail::check(rc, rank_, what, " to rank ", root, " (", values.size(), " doubles)");
    }

    void allreduce(std::span<double> values, MPI_Op op, const char* what) {
        check_size(values.size_bytes(), what);
        if (check_collectives_) agree(what, -1, values.size(), "doubles");
        const int count = static_cast<int>(values.size());
        const int rc = collective_polls() ? blocking(MPI_Iallreduce(MPI_IN_PLACE, values.data(), count, MPI_DOUBLE, op, comm_, &scratch_),
                                          {what, detail::blocked_op::shape::all, 0, 0, values.size(), "doubles"})
                               : MPI_Allreduce(MPI_IN_PLACE, values.data(), count, MPI_DOUBLE, op, comm_);
        detail::check(rc, rank_, what, " (", values.size(), " doubles)");
    }

    // ---- the truncation guard (options::guard_truncation; comet/transport/mpi/guard.hpp) ----

    /// True while guarded receives wait for their messages. MPI cannot see them (they are not
    /// posted to it), so a peer blocked sending to one of them waits until this rank matches it:
    /// every blocking operation then runs as its nonblocking twin, polled, matching them in
    /// turn — as MPI_Irecv's receives would have taken those messages meanwhile.
    bool guard_waiting() const noexcept { return guarded_ && !guard_.idle(); }

    /// Whether blocking operations run as their nonblocking twins, polled: while guarded
    /// receives wait, or with the watchdog on.
    bool polls() const noexcept { return watched_ || guard_waiting(); }

    /// Whether collectives run as their nonblocking twins, polled. Not while guarded receives
    /// happen to wait on this rank, as point-to-point operations do: MPI never matches a blocking
    /// collective with a nonblocking one (MPI-3.1 §5.12), so every rank must choose alike, and
    /// decides from what all of them share: the guard and the watchdog are on for the whole job.
    bool collective_polls() const noexcept { return watched_ || guarded_; }

    /// Completes `r`, which is the operation `op`: polling it while guarded receives wait or
    /// the watchdog watches (which ends the job once `op` has waited past its limit), in
    /// MPI_Wait otherwise.
    int complete(MPI_Request& r, MPI_Status& st, const detail::blocked_op& op) {
        detail::deadline limit(watchdog_s_);
        for (;;) {
            if (!watched_ && guard_.idle()) return MPI_Wait(&r, &st);
            int done = 0;
            const int rc = MPI_Test(&r, &done, &st);
            if (rc != MPI_SUCCESS || done) return rc;
            if (!guard_.idle()) guard_.match();
            if (limit.expired()) [[unlikely]]
                detail::watchdog_fired(comm_, rank_, watchdog_s_, op);
        }
    }

    /// A blocking operation `op` as its nonblocking twin (started into scratch_, with result
    /// `started`) and `complete`.
    int blocking(int started, const detail::blocked_op& op) {
        if (started != MPI_SUCCESS) return started;
        MPI_Status st;
        return complete(scratch_, st, op);
    }

    /// What `wait(r)` waits for, as the watchdog names it.
    static detail::blocked_op waited_for(const request& r) noexcept {
        using shape = detail::blocked_op::shape;
        if (r.kind_ == request::kind::send) return {"wait for isend", shape::to, r.peer_, r.tag_, r.size_};
        if (r.kind_ == request::kind::recv || r.kind_ == request::kind::guarded)
            return {"wait for irecv", shape::from, r.peer_, r.tag_, r.size_};
        return {"wait for a nonblocking collective"};
    }

    /// A receive (`what`: recv, sendrecv) as MPI_Irecv polled by `complete`, for the watchdog.
    status polled_recv(int source, int tag, mutable_bytes buffer, const char* what) {
        MPI_Status st{};
        int rc = MPI_Irecv(buffer.data(), detail::count_of(buffer.size()), MPI_BYTE, detail::mpi_source(source), detail::mpi_tag(tag),
                           comm_, &scratch_);
        if (rc == MPI_SUCCESS) rc = complete(scratch_, st, {what, detail::blocked_op::shape::from, source, tag, buffer.size()});
        if (rc != MPI_SUCCESS) [[unlikely]] {
            if (scratch_ != MPI_REQUEST_NULL) MPI_Request_free(&scratch_);
            receive_failed(what, source, tag, buffer.size(), rc, st);
        }
        return detail::status_of(st);
    }

    // ---- a blocking send to this rank itself ----

    /// A message sent as a copy (to this rank itself, or a bsend the attached buffer has no room
    /// for): the copy MPI sends from, and its MPI_Isend.
    struct self_send {
        std::vector<std::byte> bytes;
        MPI_Request sending = MPI_REQUEST_NULL;
    };

    /// `send` to this rank: MPI_Isend of a copy, kept until MPI has sent it. MPI_Send to oneself
    /// completes only if MPI buffers the message, since the receive that would take it can only
    /// be posted afterwards, by the same caller (see the top of this header).
    void send_to_self(int tag, const_bytes data) { send_copy(rank_, tag, data, "send"); }

    /// Sends a copy of `data` by MPI_Isend and returns; the copy is kept until MPI has sent it.
    void send_copy(int dest, int tag, const_bytes data, const char* what) {
        collect_self_sends();
        self_send& s = self_sends_.emplace_back();
        s.bytes.assign(data.begin(), data.end());
        const int rc = MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, dest, tag, comm_, &s.sending);
        if (rc != MPI_SUCCESS) [[unlikely]] {
            self_sends_.pop_back();
            detail::check(rc, rank_, what, " to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Isend of a copy");
        }
    }

    /// Frees the copies of sends to this rank that MPI has sent.
    void collect_self_sends() noexcept {
        for (auto it = self_sends_.begin(); it != self_sends_.end();) {
            int done = 0;
            if (MPI_Test(&it->sending, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 1;  // failed: MPI is done with it
            it = done ? self_sends_.erase(it) : std::next(it);
        }
    }

    // ---- options::check_collectives ----

    /// Compares every rank's `root` (-1: none) and `count` (in `unit`) of collective `what` in
    /// one MPI_Allreduce (MPI_MAXLOC over the values and their negations, which gives each
    /// extreme and the lowest rank holding it); raises invalid_argument on every rank if they
    /// differ. Collective.
    void agree(const char* what, int root, std::size_t count, const char* unit) {
        struct value_rank {
            long value;
            int rank;
        };
        const long n = static_cast<long>(count);
        value_rank v[4] = {{n, rank_}, {-n, rank_}, {root, rank_}, {-static_cast<long>(root), rank_}};
        const int rc = collective_polls() ? blocking(MPI_Iallreduce(MPI_IN_PLACE, v, 4, MPI_LONG_INT, MPI_MAXLOC, comm_, &scratch_),
                                          {what, detail::blocked_op::shape::all, 0, 0, count, unit})
                               : MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_INT, MPI_MAXLOC, comm_);
        detail::check(rc, rank_, what, ": comparing the ranks' arguments (options::check_collectives): MPI_Allreduce");
        if (v[2].value != -v[3].value)
            raise<invalid_argument>(rank_, what, ": the ranks disagree on the root: rank ", v[2].rank, " passed root ", v[2].value,
                                    ", rank ", v[3].rank, " root ", -v[3].value, " (this rank passed ", root,
                                    "; every rank must pass the same root and size)");
        if (v[0].value != -v[1].value)
            raise<invalid_argument>(rank_, what, ": the ranks disagree on the size: rank ", v[0].rank, " passed ", v[0].value, " ",
                                    unit, ", rank ", v[1].rank, " passed ", -v[1].value, " ", unit, " (this rank passed ", count,
                                    "; every rank must pass the same root and size)");
    }

    request guarded_irecv(int source, int tag, mutable_bytes buffer) {
        request r = started(request::kind::guarded, source, tag, buffer.size());
        r.guarded_ = std::make_unique<detail::guarded_recv>();
        r.guard_ = &guard_;
        detail::guarded_recv& g = *r.guarded_;
        g.source = detail::mpi_source(source);
        g.tag = detail::mpi_tag(tag);
        g.buffer = buffer.data();
        g.capacity = buffer.size();
        guard_.post(g);
        return r;
    }

    status guarded_recv(int source, int tag, mutable_bytes buffer, const char* what) {
        if (guard_.idle() && !watched_) {  // nothing posted before it: wait in MPI_Mprobe
            detail::guarded_recv g;
            g.source = detail::mpi_source(source);
            g.tag = detail::mpi_tag(tag);
            g.buffer = buffer.data();
            g.capacity = buffer.size();
            detail::receive_guard::receive_now(g, comm_);
            return guarded_result(g, source, tag, what);
        }
        request r = guarded_irecv(source, tag, buffer);  // behind earlier receives: in post order
        return wait_guarded(r, what, {what, detail::blocked_op::shape::from, source, tag, buffer.size()});
    }

    std::optional<status> test_guarded(request& r, const char* what = "irecv") {
        detail::guarded_recv& g = *r.guarded_;
        if (!g.matched) guard_.match();
        if (!g.matched) return std::nullopt;
        if (g.request != MPI_REQUEST_NULL) {
            int done = 0;
            const int rc = MPI_Test(&g.request, &done, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) g.error = rc;
            else if (!done) return std::nullopt;
        }
        return finish_guarded(r, what);
    }

    status wait_guarded(request& r, const char* what = "irecv") { return wait_guarded(r, what, waited_for(r)); }
    status wait_guarded(request& r, const char* what, const detail::blocked_op& op) {
        for (detail::deadline limit(watchdog_s_);;) {
            if (auto s = test_guarded(r, what)) return *s;
            if (limit.expired()) [[unlikely]]
                detail::watchdog_fired(comm_, rank_, watchdog_s_, op);
        }
    }

    status finish_guarded(request& r, const char* what) {
        const std::unique_ptr<detail::guarded_recv> g = std::move(r.guarded_);
        r.kind_ = request::kind::none;
        r.guard_ = nullptr;
        if (g->request != MPI_REQUEST_NULL) MPI_Request_free(&g->request);  // failed in MPI_Test
        return guarded_result(*g, r.peer_, r.tag_, what);
    }

    status guarded_result(const detail::guarded_recv& g, int source, int tag, const char* what) const {
        const status got{g.message_source, g.message_tag, g.size};
        if (g.error != MPI_SUCCESS)
            raise<error>(rank_, what, " from ", source_name{source}, " (", tag_name{tag}, "): ", detail::error_text(g.error));
        if (g.truncated()) throw truncation_error(truncated(what, source, tag, got, g.capacity));
        return got;
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 0;
    bool clock_is_global_ = false;
    bool counts_preemptions_ = false;  ///< options::count_preemptions, and no more ranks here than CPUs
    bool guarded_ = false;
    bool check_collectives_ = false;
    double watchdog_s_ = 0;  ///< options::watchdog_s
    bool watched_ = false;   ///< watchdog_s_ > 0
    detail::receive_guard guard_;
    std::list<self_send> self_sends_;  ///< a list: a copy never moves while MPI reads it
    MPI_Request scratch_ = MPI_REQUEST_NULL;  ///< a guarded blocking operation's nonblocking twin
    std::vector<MPI_Request> handles_;  ///< wait_all's scratch, kept between calls
    std::vector<MPI_Status> statuses_;
};

inline void request::release() noexcept {
    if (kind_ == kind::none) return;
    if (kind_ == kind::guarded) {
        if (!guarded_->matched)
            guard_->withdraw(*guarded_);  // not matched: cancelled
        else if (guarded_->request != MPI_REQUEST_NULL && detail::mpi_running())
            MPI_Wait(&guarded_->request, MPI_STATUS_IGNORE);  // matched: its data is on the way
        guarded_.reset();
    } else if (mpi_ != MPI_REQUEST_NULL && detail::mpi_running()) {
        if (kind_ == kind::recv) {
            MPI_Cancel(&mpi_);  // MPI-3.1 §3.8.4: either cancelled or, if matched already, received
            MPI_Wait(&mpi_, MPI_STATUS_IGNORE);
        } else if (std::uncaught_exceptions() == 0) {
            // The caller's buffer: MPI may still read it. A guarded transport's waiting receives
            // keep matching meanwhile (see transport::guard_waiting).
            for (int done = 0; guard_ && !guard_->idle() && !done;) {
                if (MPI_Test(&mpi_, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
                if (!done) guard_->match();
            }
            if (mpi_ != MPI_REQUEST_NULL) MPI_Wait(&mpi_, MPI_STATUS_IGNORE);
        } else if (kind_ == kind::send) {
            MPI_Request_free(&mpi_);  // unwinding: run ends the job next; don't wait for a peer
        }
        // A collective abandoned while an exception unwinds: MPI forbids freeing it; the job is
        // about to end (run aborts it), so it is left as it is.
    }
    mpi_ = MPI_REQUEST_NULL;
    kind_ = kind::none;
    guard_ = nullptr;
}

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> && sendrecv_transport<transport> &&
              nonblocking_collective_transport<transport> && progress_transport<transport>);
static_assert(buffered_send_transport<transport> && !buffering_transport<transport>,
              "MPI_Bsend is a mode of its own: MPI's standard send may wait (comet::buffered buffers every send)");

/// Runs `fn(transport&)` on this process's rank of `comm` and returns what it returns. Every
/// process of `comm` calls run with the same function (@pre). After `fn`, the ranks meet in an
/// MPI_Barrier (so no rank frees the communicator while a peer still talks to it). If `fn`
/// throws on any rank, that rank prints "comet: rank R: <what>" on stderr and ends the whole
/// job with MPI_Abort (status 1): no rank is left waiting for it.
/// @code
///   comet::mpi::initialize();
///   boost::mpi::communicator world;
///   auto r = comet::mpi::run(world, [](comet::mpi::transport& t) { return comet::kernels::echo(t, {.sizes = {8}}); });
///   // r: the records measured on this rank (the test node's, on rank 0)
/// @endcode
template <class F>
auto run(const boost::mpi::communicator& comm, options o, F&& fn) -> std::invoke_result_t<F&, transport&> {
    using result = std::invoke_result_t<F&, transport&>;
    // The transport lives outside the try block, so that when fn throws it is still there
    // (with its communicator) for the abort, instead of being torn down while peers wait.
    std::optional<transport> t;
    try {
        t.emplace(comm, o);
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

/// run on `comm` with default options.
template <class F>
auto run(const boost::mpi::communicator& comm, F&& fn) -> std::invoke_result_t<F&, transport&> {
    return run(comm, options{}, std::forward<F>(fn));
}

/// Starts MPI if needed (initialize()) and runs `fn` on this process's rank of MPI_COMM_WORLD.
/// @code
///   int main() {   // mpirun -np 4 ./my_benchmark
///       comet::mpi::run([](comet::mpi::transport& t) {
///           comet::result_set r = comet::kernels::pairwise(t, {.sizes = {1024, 65536}});
///           for (const comet::record& x : r.records)   // on rank 0, the test node
///               std::printf("%s: %.2f us\n", x.kernel.c_str(), x.samples.front() * 1e6);
///       });
///   }
/// @endcode
template <class F>
auto run(F&& fn) -> std::invoke_result_t<F&, transport&> {
    initialize();
    return run(boost::mpi::communicator{}, options{}, std::forward<F>(fn));
}

}  // namespace comet::mpi
