// comet/transport/mpi/collectives.hpp — the MPI transport's collectives, each the one MPI call
// named beside it (MPI-3.1 chapter 5): barrier, broadcast, the reductions, gather and alltoall,
// blocking; ibarrier, ibroadcast and iallreduce_sum, nonblocking. comet::mpi::transport
// (transport.hpp) derives from detail::collectives, so they are the transport's members.
//
// With the guard or the watchdog on, a blocking collective runs as its nonblocking twin, polled
// (endpoint.hpp): every rank must then pass the same options.
//
// Collective arguments (options::check_collectives, off by default). MPI leaves a collective
// whose ranks pass different sizes or roots erroneous and undetected (MPI-3.1 §5.1): on Open
// MPI 4.1, a broadcast whose root passes more bytes than the others writes past their buffers,
// and one whose root passes fewer leaves them partly written, unreported. With the check on,
// broadcast, the reductions, gather and alltoall first compare every rank's root and size in
// one MPI_Allreduce (`agree`) and, if they differ, every rank raises invalid_argument naming
// the two extremes and the ranks that passed them. That allreduce is a message MPI's
// collective does not send, so measurements leave the check off. Nonblocking collectives are
// not checked (a blocking comparison would change when they return).
//
// Part of the MPI transport (comet/transport/mpi.hpp); not meant to be used on its own.
#pragma once

#include <comet/core/errors.hpp>
#include <comet/core/types.hpp>
#include <comet/transport/mpi/endpoint.hpp>
#include <comet/transport/mpi/environment.hpp>
#include <comet/transport/mpi/request.hpp>
#include <comet/transport/mpi/watchdog.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>

namespace comet::mpi::detail {

/// The collectives of one rank's MPI transport, over its duplicate communicator.
class collectives : public endpoint {
public:
    // ---- blocking ----

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
                                          {"broadcast", blocked_op::shape::root, root, 0, data.size(), "bytes"})
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
                                          {"gather", blocked_op::shape::root, root, 0, mine.size(), "bytes each"})
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
                                          {"alltoall", blocked_op::shape::all, 0, 0, n, "bytes to each rank"})
                               : MPI_Alltoall(out.data(), count, MPI_BYTE, in.data(), count, MPI_BYTE, comm_);
        detail::check(rc, rank_, "alltoall (", n, " bytes to each rank)");
    }

    // ---- nonblocking (MPI-3.1 §5.12) ----

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

protected:
    using endpoint::endpoint;

private:
    void reduce(int root, std::span<double> values, MPI_Op op, const char* what) {
        check_size(values.size_bytes(), what);
        if (check_collectives_) agree(what, root, values.size(), "doubles");
        const int count = static_cast<int>(values.size());
        const void* from = rank_ == root ? MPI_IN_PLACE : values.data();
        double* into = rank_ == root ? values.data() : nullptr;
        const int rc = collective_polls() ? blocking(MPI_Ireduce(from, into, count, MPI_DOUBLE, op, root, comm_, &scratch_),
                                          {what, blocked_op::shape::root, root, 0, values.size(), "doubles"})
                               : MPI_Reduce(from, into, count, MPI_DOUBLE, op, root, comm_);
        detail::check(rc, rank_, what, " to rank ", root, " (", values.size(), " doubles)");
    }

    void allreduce(std::span<double> values, MPI_Op op, const char* what) {
        check_size(values.size_bytes(), what);
        if (check_collectives_) agree(what, -1, values.size(), "doubles");
        const int count = static_cast<int>(values.size());
        const int rc = collective_polls() ? blocking(MPI_Iallreduce(MPI_IN_PLACE, values.data(), count, MPI_DOUBLE, op, comm_, &scratch_),
                                          {what, blocked_op::shape::all, 0, 0, values.size(), "doubles"})
                               : MPI_Allreduce(MPI_IN_PLACE, values.data(), count, MPI_DOUBLE, op, comm_);
        detail::check(rc, rank_, what, " (", values.size(), " doubles)");
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
                                          {what, blocked_op::shape::all, 0, 0, count, unit})
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
};

}  // namespace comet::mpi::detail
