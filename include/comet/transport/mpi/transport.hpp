// comet/transport/mpi/transport.hpp — comet::mpi::transport, one rank's endpoint of the MPI
// transport (SPEC 4.2), and the options it is set up with: the point-to-point operations, the
// send modes, progress, time, computation and failure, each the one MPI call named beside it
// (the table at the top of comet/transport/mpi.hpp). Its collectives are its base's
// (collectives.hpp); what every operation shares, and how a blocking one completes, is
// endpoint.hpp's.
//
// Matching, non-overtaking, progress and buffering are MPI's own. In particular `send` is a
// standard send: it may wait for the matching receive (MPI's eager limit decides when), so two
// ranks that both `send` a large message first deadlock, as they would in MPI. A `send` to the
// rank itself is the exception: an MPI_Isend of a copy (sent_copies.hpp).
//
// The communicator. A transport works on a duplicate (MPI_Comm_dup) of the communicator it is
// given, so comet's messages never match the application's receives nor the application's
// messages comet's. The duplicate has MPI_ERRORS_RETURN: an MPI error becomes a comet::error
// "rank R: <call>: <MPI's text>" instead of ending the job.
//
// Progress is MPI's: with Open MPI, nothing moves while a rank computes without calling MPI;
// `progress()` calls MPI_Iprobe, which runs Open MPI's progress engine. Time: MPI_Wtime,
// global when MPI_WTIME_IS_GLOBAL says so. One thread at a time: a progress thread
// (nbc/progress_thread.hpp) may call the transport while the rank's own thread computes where
// MPI provided MPI_THREAD_SERIALIZED or more (`serialized_threads()`), which
// comet::mpi::initialize(boost::mpi::threading::serialized) asks for (MPI_THREAD_SINGLE by
// default: environment.hpp says why).
//
// Why each choice, and what was measured of Open MPI: docs/transports.md, "How the MPI
// transport behaves, and why".
//
// Part of the MPI transport: include comet/transport/mpi.hpp and link the comet::mpi CMake target.
#pragma once

#include <comet/core/concepts.hpp>
#include <comet/core/errors.hpp>
#include <comet/core/preemptions.hpp>
#include <comet/core/types.hpp>
#include <comet/core/work.hpp>
#include <comet/transport/mpi/bsend.hpp>
#include <comet/transport/mpi/collectives.hpp>
#include <comet/transport/mpi/endpoint.hpp>
#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/guard.hpp>
#include <comet/transport/mpi/request.hpp>
#include <comet/transport/mpi/sent_copies.hpp>
#include <comet/transport/mpi/status.hpp>
#include <comet/transport/mpi/watchdog.hpp>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace comet::mpi {

/// How a transport is set up (all optional). @pre every rank of the communicator passes the
/// same options: with the guard or the watchdog on, collectives run as their nonblocking twins,
/// which MPI matches only with nonblocking collectives.
struct options {
    /// Receive every message through a matched probe, so that one longer than its buffer is
    /// never written into it (guard.hpp; Open MPI 4.1 writes past the buffer on rendezvous
    /// paths: docs/transports.md). Costs about 24 ns a receive (+10% on an 8-byte ping-pong,
    /// +1% at 4 KiB, nothing measurable from 64 KiB); off by default so that measurements are
    /// MPI's.
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

/// One rank's endpoint: one process of an MPI job, on a duplicate of a communicator. Every
/// member is called from the thread that drives MPI in this process.
/// @code
///   comet::mpi::initialize();
///   comet::mpi::transport t(boost::mpi::communicator{});        // MPI_COMM_WORLD, duplicated
///   comet::result_set r = comet::kernels::echo(t, {.sizes = {8, 1024}});
/// @endcode
class transport : public detail::collectives {
public:
    using request = mpi::request;

    /// Duplicates `comm` (collective over it: every rank of `comm` constructs at once).
    /// @throws invalid_argument if `comm` is a null communicator; error if MPI is not running.
    /// @throws invalid_argument if options::watchdog_s is negative or not a number.
    explicit transport(const boost::mpi::communicator& comm, options o = {})
        : collectives(o.guard_truncation, o.check_collectives, o.watchdog_s) {
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
        copies_.leave();  // a copy never received (sent to this rank itself) stays: MPI may still read it
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
                      rank_, "irecv from ", detail::source_name{source}, " (", detail::tag_name{tag}, "): MPI_Irecv");
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
            r.failed(rank_, rc, st, "test");
        if (!done) return std::nullopt;
        return r.completed(st);
    }

    /// MPI_Iprobe: the status of the earliest matching message that has arrived, if any.
    std::optional<status> iprobe(int source, int tag) {
        check_recv(source, tag, "iprobe");
        for (;;) {
            if (guarded_ && !guard_.idle()) guard_.match();  // a waiting receive takes its message first
            int found = 0;
            MPI_Status st;
            detail::check(MPI_Iprobe(detail::mpi_source(source), detail::mpi_tag(tag), comm_, &found, &st), rank_,
                          "iprobe from ", detail::source_name{source}, " (", detail::tag_name{tag}, "): MPI_Iprobe");
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

    // ---- native operations (the collectives: collectives.hpp) ----

    /// MPI_Send: a standard send, which may wait for the matching receive. A send to this rank
    /// itself returns at once: it is an MPI_Isend of a copy (sent_copies.hpp).
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
            detail::receive_failed(rank_, "recv", source, tag, buffer.size(), rc, st);
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
            r.failed(rank_, rc, st, "wait");
        return r.completed(st);
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
        if (first_error < requests.size())
            requests[first_error].failed(rank_, statuses_[first_error].MPI_ERROR, statuses_[first_error], "wait_all");
        detail::check(rc, rank_, "wait_all: MPI_Waitall");
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
        if (const detail::bsend_buffer& b = detail::the_bsend_buffer(); b.ours && b.used + detail::bsend_charge(data.size()) > b.capacity) {
            copies_.send(comm_, rank_, dest, tag, data, "bsend");
            return;
        }
        detail::make_bsend_room(rank_, 1, data.size());
        const int rc = MPI_Bsend(data.data(), static_cast<int>(data.size()), MPI_BYTE, dest, tag, comm_);
        if (rc != MPI_SUCCESS) {
            int cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            if (cls == MPI_ERR_BUFFER)  // only a buffer the program attached can be full
                raise<error>(rank_, "bsend to rank ", dest, " (tag ", tag, ", ", data.size(),
                             " bytes): the buffer the program attached (MPI_Buffer_attach) is full");
        }
        detail::check(rc, rank_, "bsend to rank ", dest, " (tag ", tag, ", ", data.size(), " bytes): MPI_Bsend");
        detail::the_bsend_buffer().used += detail::bsend_charge(data.size());
    }

    /// Makes room for `messages` buffered sends totalling `bytes` before they are made, so that
    /// none of them waits in `bsend` for earlier ones: a kernel calls it outside its timing. It
    /// may wait for the messages buffered so far to be sent (MPI_Buffer_detach).
    void reserve_bsend(std::size_t messages, std::size_t bytes) { detail::make_bsend_room(rank_, messages, bytes); }

    /// MPI_Bsend is MPI's buffered mode, a copy MPI's other sends do not make: kernels whose
    /// ranks both send first swap by MPI_Sendrecv instead (core/concepts.hpp, buffering_transport).
    static constexpr bool bsend_copies = true;

    /// A second thread may call the transport, one thread at a time, handed over by a lock
    /// (nbc/progress_thread.hpp)...
    static constexpr bool thread_serialized = true;
    /// ... where MPI provided MPI_THREAD_SERIALIZED or more (MPI_Query_thread): a program that
    /// started MPI itself with less gets "not supported" for a progress thread.
    bool serialized_threads() const {
        int level = MPI_THREAD_SINGLE;
        if (MPI_Query_thread(&level) != MPI_SUCCESS) return false;
        return level >= MPI_THREAD_SERIALIZED;
    }

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
            detail::receive_failed(rank_, "sendrecv", source, recv_tag, in.size(), rc, st);
        return detail::status_of(st);
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
    // ---- the blocking operations' polled twins, for the guard and the watchdog (endpoint.hpp) ----

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
            detail::receive_failed(rank_, what, source, tag, buffer.size(), rc, st);
        }
        return detail::status_of(st);
    }

    // ---- a blocking send to this rank itself ----

    /// `send` to this rank: MPI_Isend of a copy, kept until MPI has sent it. MPI_Send to oneself
    /// completes only if MPI buffers the message, since the receive that would take it can only
    /// be posted afterwards, by the same caller (sent_copies.hpp).
    void send_to_self(int tag, const_bytes data) { copies_.send(comm_, rank_, rank_, tag, data, "send"); }

    // ---- the truncation guard's receives (options::guard_truncation; guard.hpp) ----

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
            raise<error>(rank_, what, " from ", detail::source_name{source}, " (", detail::tag_name{tag}, "): ",
                         detail::error_text(g.error));
        if (g.truncated()) throw truncation_error(detail::truncated(rank_, what, source, tag, got, g.capacity));
        return got;
    }

    // The communicator, rank, size, options, guard and scratch request: the base's (endpoint.hpp).
    bool clock_is_global_ = false;
    bool counts_preemptions_ = false;  ///< options::count_preemptions, and no more ranks here than CPUs
    detail::sent_copies copies_;       ///< sends to this rank itself, and bsends with no room left
    std::vector<MPI_Request> handles_;  ///< wait_all's scratch, kept between calls
    std::vector<MPI_Status> statuses_;
};

static_assert(comet::transport<transport>);
static_assert(synchronous_send_transport<transport> && ready_send_transport<transport> && sendrecv_transport<transport> &&
              nonblocking_collective_transport<transport> && progress_transport<transport>);
static_assert(buffered_send_transport<transport> && !buffering_transport<transport>,
              "MPI_Bsend is a mode of its own: MPI's standard send may wait (comet::buffered buffers every send)");

}  // namespace comet::mpi
