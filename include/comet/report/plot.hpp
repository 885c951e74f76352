// comet/report/plot.hpp — plots in the manner of the CoMet thesis' figures 5.1–5.16, in one
// include:
//
//   plot_model.hpp    plot descriptions (which records, x, y, series) and the points they take
//   gnuplot.hpp       the .dat and .gp files of each plot, rendered to .png by gnuplot
//   thesis_plots.hpp  the thesis' figures as descriptions
//
// @code
//   comet::plot_outcome o = comet::write_plots(out / "plots", comet::thesis_plots(), report.results);
//   for (const auto& f : o.not_rendered) std::cerr << "no " << f.name << ".png: " << f.reason << '\n';
// @endcode
#pragma once

#include <comet/report/gnuplot.hpp>
#include <comet/report/plot_model.hpp>
#include <comet/report/thesis_plots.hpp>
