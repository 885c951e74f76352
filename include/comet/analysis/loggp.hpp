// comet/analysis/loggp.hpp — a network's LogGP parameters, and the per-byte overhead O of
// LogGOPS, from the parametrised round trips of kernels/loggp.hpp (Netgauge's method; Hoefler,
// Lichei and Rehm 2007). Per size s, with n the train's length and d each train's spacing:
//
//   gap(s)      = (PRTT(n, 0, s) − PRTT(1, 0, s)) / (n − 1)         = g + G·s
//   send(s)     = (PRTT(n, d, s) − PRTT(1, 0, s)) / (n − 1) − d     = o_s + O_s·s
//   both(s)     = late(s) − d                                       = send(s) + receive(s)
//   receive(s)  = both(s) − send(s)                                 = o_r + O_r·s
//   path(s)     = PRTT(1, 0, s) / 2 − both(s)                       = L + G_path·s
//
// Each is the least-squares line over the sizes, with the standard errors of its intercept and
// slope from three sizes on. G is Netgauge's, the gap's slope; G_path, the slope of a message's
// time between its two ends, is G too where the network sets the trains' pace, and larger where
// the sender's overhead does (the gap then shows o_s + O_s·s, not the wire: the iPSC/860's small
// messages). The model's one o (and O) is the mean of the sender's and the receiver's, the line of
// both(s) / 2: a message then costs the two ends together what it cost them here.
//
// What is not read at face value: a size with a round trip that has no valid sample or is
// flagged as a whole (`usable`) is left out and named in the notes; an estimate derived from a
// median whose samples disagree ("statistics") carries the flag, naming the record: the single
// round trip feeds every estimate, the back-to-back train g and G, the spaced one the two ends'
// overheads, the late one the receiver's, o, O, L and G_path. A spaced train spaced less than
// its gap flags the two ends' overheads; an estimate below zero by more than twice its error says
// the model does not describe the transport at these sizes (typically a size from which it sends
// by rendezvous), and flags it (L and G_path together: one line gave both).
#pragma once

#include <comet/core/compiled.hpp>

#include <comet/stats/record.hpp>

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace comet {

/// One parameter: its value, its standard error (NaN: too few sizes to tell), and why it must
/// not be read at face value (empty: it may).
struct loggp_estimate {
    double value = std::numeric_limits<double>::quiet_NaN();
    double se = std::numeric_limits<double>::quiet_NaN();
    std::string flag = {};
    bool valid() const noexcept { return flag.empty() && value == value; }
};

/// What one size contributed (seconds).
struct loggp_point {
    std::size_t size = 0;
    double single = 0, back_to_back = 0, spaced = 0, late = 0;  ///< PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s), late(s)
    double spacing = 0, late_delay = 0;                         ///< the spaced train's d, the late one's
    double gap = 0, send = 0, receive = 0, path = 0;            ///< as in the header's comment
    std::string flag = {};  ///< why this size's figures must not be read at face value (empty: they may)
};

/// The fitted parameters (seconds; G and the O's per byte) and what they came from.
struct loggp_parameters {
    loggp_estimate L, o, O, g, G;        ///< the model's (o, O: the two ends' mean)
    loggp_estimate o_s, O_s, o_r, O_r;   ///< the sender's and the receiver's, as measured
    loggp_estimate G_path;               ///< per byte between the two ends (see above)
    std::size_t train = 0;               ///< n
    std::vector<loggp_point> points;     ///< the sizes fitted, rising
    std::vector<std::string> notes;      ///< sizes left out, and why; the flags' reasons
    /// Every parameter of the model, and G_path (L's line), may be read at face value.
    bool valid() const noexcept { return L.valid() && o.valid() && O.valid() && g.valid() && G.valid() && G_path.valid(); }
};

/// Fits the parameters to the records of kernel "loggp" among `records` (other kernels' are
/// ignored). @throws invalid_argument when there are none, when two trains' lengths differ, when
/// a round trip of a size is there twice, or when fewer than two sizes have all four round trips.
/// @code
///   auto m = comet::fit_loggp(comet::kernels::loggp(t).records);
///   std::printf("o = %g ± %g s\n", m.o.value, m.o.se);
/// @endcode
COMET_DECL loggp_parameters fit_loggp(std::span<const record> records);

}  // namespace comet

#if !defined(COMET_COMPILED)
#include <comet/analysis/loggp.ipp>
#endif
