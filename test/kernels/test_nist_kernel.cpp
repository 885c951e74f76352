// Tests of comet/kernels/nist/kernel.hpp: the dilation study of each application on the
// simulated iPSC/860 and on the threads transport gives one record per (setting, factor) with
// the seed's row (E_D the sample; U_D + L_D + P_D + O_D = E_D; none negative), normalised by the
// factor, and no speedup: with analysis/delays.hpp's estimate_dilations over them, a speedup of
// 1 at factor 1 and equation 1 fitted or said not to be; bad studies are
// refused naming the value; the retries column is the simulator's count (0 with retransmission
// off) and absent where the transport counts none. On the seed's own machine (the ipsc1 preset,
// 16 nodes), the applications show table II's pattern where the model holds it. The simulator's
// cases are built where it is (COMET_TEST_HAS_NX2: Boost.Context found).
#include <comet/analysis/delays.hpp>
#include <comet/kernels/nist/kernel.hpp>
#include <comet/stats/compare.hpp>
#include <comet/transport/threads.hpp>
#if COMET_TEST_HAS_NX2
#include <comet/transport/nx2.hpp>
#endif

#include <boost/test/unit_test.hpp>

#include "../support/messages.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>

namespace nist_kernel_test {

namespace nist = comet::kernels::nist;

/// Small configurations: a test, not the seed's runs.
nist::study_config small() {
    nist::study_config c;
    c.dilations = {1, 2, 4};
    c.ring = [](nist::setting s) {
        auto r = nist::ring_setting(s);
        r.messages = 3;
        return r;
    };
    c.rc = [](nist::setting s) {
        auto r = nist::rc_setting(s);
        r.initial_items /= 50;
        return r;
    };
    c.mesh = [](nist::setting s) {
        auto m = nist::mesh_setting(s);
        m.steps = 5;
        return m;
    };
    return c;
}

/// The records as the suite reports them: with the speedups and equation 1 derived.
comet::result_set estimated(comet::result_set r) {
    comet::estimate_dilations(r.records);
    return r;
}

void check_rows(const comet::result_set& r, const std::string& app, int nodes, std::size_t settings, std::size_t factors) {
    BOOST_REQUIRE_EQUAL(r.records.size(), settings * factors);
    for (const comet::record& rec : r.records) {
        const std::string where = app + " " + *rec.params.text("setting") + " D=" + std::to_string(*rec.params.number("dilation"));
        BOOST_TEST(rec.kernel == app);
        BOOST_TEST(*rec.params.integer("nodes") == nodes);
        BOOST_REQUIRE_EQUAL(rec.samples.size(), 1u);
        const double e = rec.samples[0];
        // The point: application, setting, D, nodes, trials; the service states and the rest
        // measured there are values.
        // and the application's parameters that are not the seed's, named "<application>.<name>".
        for (const char* name : {"application", "setting", "dilation", "nodes", "trials"}) BOOST_TEST(rec.params.contains(name), name);
        std::size_t own = 0;
        for (const auto& [name, value] : rec.params) own += name.starts_with(app + ".") ? 1 : 0;
        BOOST_TEST(rec.params.size() == 5u + own);
        const double u = *rec.values.number("user"), l = *rec.values.number("logical"), p = *rec.values.number("physical"),
                     o = *rec.values.number("overhead");
        BOOST_TEST(e > 0.0, where);
        for (double x : {u, l, p}) BOOST_TEST(x >= 0.0, where);
        BOOST_TEST(o >= -1e-9 * e, where);
        BOOST_TEST(std::abs(u + l + p + o - e) <= 1e-9 * e, where);
        BOOST_TEST(*rec.values.number("elapsed") == e, where);  // one trial: the row's is the sample
        // The kernel measures; the speedup and equation 1 are the analysis' (estimated()).
        BOOST_TEST(!rec.values.contains("speedup"), where);
        BOOST_TEST(u > 0.0, where);
        // TM counts data messages, as the seed's tables do; acknowledgements and RC's token and
        // stop notices are counted apart: the ring acknowledges every hop, RC every work message.
        const std::int64_t data = *rec.values.integer("data_messages"), control = *rec.values.integer("control_messages");
        BOOST_TEST(data > 0, where);
        if (app == "ring") BOOST_TEST(control == data, where);
        if (app == "mesh") BOOST_TEST(control == 0, where);
        if (app == "rc") BOOST_TEST(control > data, where);
    }
    for (const comet::record& rec : estimated(r).records)
        if (*rec.params.number("dilation") == 1.0) BOOST_TEST(*rec.values.number("speedup") == 1.0, app);
}

}  // namespace nist_kernel_test

BOOST_AUTO_TEST_SUITE(nist_kernel)

using namespace nist_kernel_test;

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(every_application_on_the_simulator) {
    for (auto app : {nist::application::ring, nist::application::rc, nist::application::mesh}) {
        const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) {
            return nist::dilation_study(t, app, small());
        });
        check_rows(out[0], std::string(nist::to_string(app)), 4, 2, 3);
        for (std::size_t i = 1; i < out.size(); ++i) BOOST_TEST(out[i].records.empty());
        // Deterministic: the same study gives the same records.
        const auto again = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) {
            return nist::dilation_study(t, app, small());
        });
        for (std::size_t i = 0; i < out[0].records.size(); ++i) BOOST_TEST(again[0].records[i].samples == out[0].records[i].samples);
    }
}

BOOST_AUTO_TEST_CASE(table_ii_on_the_ipsc1) {
    // The seed's settings on its 16-node iPSC/1 (about two seconds of host time): communication-
    // intensive ring and mesh speed up clearly with D, their computation-intensive settings
    // barely change, and neither does CP-RC (table II). CM-RC is not asserted: with each datum
    // costing what table A5 says it cost (rc.hpp) it speeds up 1.22 times, above the 1.2 that
    // "little speedup" is held to here, because the model's NX/1 overhead is twice the seed's at
    // D = 1 and all of it shrinks with D (docs/nist.md).
    nist::study_config c;
    c.dilations = {1, 16};
    for (auto app : {nist::application::ring, nist::application::rc, nist::application::mesh}) {
        const auto out = comet::nx2::run(comet::nx2::ipsc1(4), [&](comet::nx2::transport& t) { return nist::dilation_study(t, app, c); });
        const std::string name(nist::to_string(app));
        check_rows(out[0], name, 16, 2, 2);
        const auto r = estimated(out[0]).records;
        const double cm = *r[1].values.number("speedup"), cp = *r[3].values.number("speedup");
        BOOST_TEST(*r[1].params.text("setting") == "cm");
        if (app != nist::application::rc) BOOST_TEST(cm >= 1.5, name << " cm: E_1/E_16 = " << cm);
        BOOST_TEST(cp <= (app == nist::application::rc ? 1.2 : 1.15), name << " cp: E_1/E_16 = " << cp);
        // The simulator counts retransmissions: every row has the column, and equation 1 says
        // what it could fit from them.
        // U is the computation without the interrupt handlers in it (the seed's definition), so
        // U_D is the same at every factor: the application's work, normalised.
        for (std::size_t i = 0; i < r.size(); i += 2) {
            const double u1 = *r[i].values.number("user"), u16 = *r[i + 1].values.number("user");
            BOOST_TEST(std::abs(u16 - u1) <= 1e-3 * u1, name << " " << *r[i].params.text("setting") << ": U_1 " << u1 << ", U_16 " << u16);
            BOOST_TEST(r[i].values.number("interrupts").value_or(-1.0) >= 0.0, name);
        }
        for (const comet::record& rec : r) {
            BOOST_TEST(rec.values.integer("retries").has_value(), name);
            BOOST_TEST(!rec.notes.empty(), name);  // two runs: b0 only, or b1 and b0 exactly, never a tested fit
        }
    }
    // Every node's states add up to its elapsed time, none negative.
    for (auto app : {nist::application::ring, nist::application::rc, nist::application::mesh})
        for (auto s : {nist::setting::cm, nist::setting::cp}) {
            const auto per = comet::nx2::run(comet::nx2::ipsc1(4), [&](comet::nx2::transport& t) {
                return nist::detail::traced_run(t, app, nist::study_config{}, s, 1.0).first;
            });
            for (const comet::delay_decomposition& d : per) {
                BOOST_TEST(std::abs(d.user + d.logical + d.physical + d.overhead - d.elapsed) <= 0.01 * d.elapsed);
                BOOST_TEST(d.overhead >= 0.0);
                BOOST_TEST(d.user > 0.0);
                BOOST_TEST(d.retransmissions_known);
            }
        }
}
#endif

BOOST_AUTO_TEST_CASE(the_retries_column_says_what_the_transport_counted) {
    auto cfg = small();
    cfg.settings = {nist::setting::cm};
#if COMET_TEST_HAS_NX2
    // Retransmission off: counted, and none.
    auto off = comet::nx2::ipsc1(2);
    off.retry_timeout = 0;
    const auto none = comet::nx2::run(off, [&](comet::nx2::transport& t) { return nist::dilation_study(t, nist::application::ring, cfg); });
    for (const comet::record& rec : estimated(none[0]).records) {
        BOOST_TEST(rec.values.integer("retries").value_or(-1) == 0);
        BOOST_TEST(comet_test::mentions(std::runtime_error(rec.notes.at(0)), {"every run had 0 retransmissions"}), rec.notes.at(0));
    }
#endif
    // A transport that counts none: no column, and the note does not claim there were 0.
    cfg.dilations = {1, 2};
    const auto unknown = comet::threads::run(4, [&](comet::threads::transport& t) {
        return nist::dilation_study(t, nist::application::ring, cfg);
    });
    for (const comet::record& rec : estimated(unknown[0]).records) {
        BOOST_TEST(!rec.values.integer("retries").has_value());
        BOOST_TEST(!rec.values.contains("interrupts"));  // the threads transport does not say
        BOOST_TEST(comet_test::mentions(std::runtime_error(rec.notes.at(0)), {"counts no retransmissions"}), rec.notes.at(0));
    }
}

BOOST_AUTO_TEST_CASE(the_ring_on_threads) {
    auto cfg = small();
    cfg.settings = {nist::setting::cm};
    cfg.dilations = {1, 2};
    const auto out = comet::threads::run(4, [&](comet::threads::transport& t) {
        return nist::dilation_study(t, nist::application::ring, cfg);
    });
    check_rows(out[0], "ring", 4, 1, 2);
    // A second run measures other times, and is still the same points: what a run measured
    // (the service states, counts, speedup, equation 1) is not part of a point's name, so that
    // `comet compare` matches the two runs' records.
    const auto again = comet::threads::run(4, [&](comet::threads::transport& t) {
        return nist::dilation_study(t, nist::application::ring, cfg);
    });
    BOOST_REQUIRE_EQUAL(again[0].records.size(), out[0].records.size());
    for (std::size_t i = 0; i < out[0].records.size(); ++i) {
        const std::string name = comet::point_name(out[0].records[i]);
        BOOST_TEST(name == comet::point_name(again[0].records[i]));
        BOOST_TEST(name.find("ring/application:ring/setting:cm/dilation:") == 0u, name);
        BOOST_TEST(name.find("user:") == std::string::npos, name);
    }
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(a_stop_request_ends_the_study_before_its_next_run) {
    // Requested before the study starts: the test node's answer reaches every rank before the
    // first run, no factor is run, and there is no record of one.
    auto cfg = small();
    std::stop_source source;
    source.request_stop();
    cfg.stop = source.get_token();
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) {
        return nist::dilation_study(t, nist::application::ring, cfg);
    });
    for (const auto& r : out) BOOST_TEST(r.records.empty());
}
#endif

BOOST_AUTO_TEST_CASE(application_parameters_are_set_by_name) {
    nist::study_config c;
    nist::set_parameter(c, "ring.messages=40");
    nist::set_parameter(c, "cp.ring.work_per_datum=7");
    nist::set_parameter(c, "cm.mesh.message_bytes=512");
    nist::set_parameter(c, "rc.dispatch_frequency=100");
    nist::set_parameter(c, "cp.rc.dispatch_share=0.25");
    // Both settings, or the one named; the rest stay the seed's.
    BOOST_TEST(c.ring(nist::setting::cm).messages == 40u);
    BOOST_TEST(c.ring(nist::setting::cp).messages == 40u);
    BOOST_TEST(c.ring(nist::setting::cp).work_per_datum == 7u);
    BOOST_TEST(c.ring(nist::setting::cm).work_per_datum == nist::ring_setting(nist::setting::cm).work_per_datum);
    BOOST_TEST(c.ring(nist::setting::cp).bookkeeping_per_datum == nist::ring_setting(nist::setting::cp).bookkeeping_per_datum);
    BOOST_TEST(c.mesh(nist::setting::cm).message_bytes == 512u);
    BOOST_TEST(c.mesh(nist::setting::cp).message_bytes == nist::mesh_setting(nist::setting::cp).message_bytes);
    BOOST_TEST(c.rc(nist::setting::cp).dispatch_frequency == 100u);
    BOOST_TEST(c.rc(nist::setting::cp).dispatch_share == 0.25);  // a fraction where the field is one
    BOOST_TEST(c.rc(nist::setting::cm).dispatch_share == nist::rc_setting(nist::setting::cm).dispatch_share);
    // A later call overrides an earlier one for what they share.
    nist::set_parameter(c, "cm.ring.messages=5");
    BOOST_TEST(c.ring(nist::setting::cm).messages == 5u);
    BOOST_TEST(c.ring(nist::setting::cp).messages == 40u);
    // What differs from the seed is what a record names.
    const auto changed = nist::detail::changed_parameters(nist::application::ring, c, nist::setting::cp);
    BOOST_REQUIRE_EQUAL(changed.size(), 2u);
    BOOST_TEST(changed[0].first == "ring.messages");
    BOOST_TEST(changed[0].second == 40u);
    BOOST_TEST(changed[1].first == "ring.work_per_datum");
    BOOST_TEST(nist::detail::changed_parameters(nist::application::mesh, c, nist::setting::cp).empty());
    // Each bad spec is refused naming itself and what is wrong.
    const auto refused = [](std::string_view spec, std::initializer_list<const char*> words) {
        nist::study_config d;
        try {
            nist::set_parameter(d, spec);
            BOOST_ERROR("accepted " << spec);
        } catch (const comet::invalid_argument& e) {
            BOOST_TEST(comet_test::mentions(e, words), e.what());
        }
    };
    refused("ring.messages", {"'ring.messages'", "not [cm.|cp.]application.name=value"});
    refused("messages=4", {"not [cm.|cp.]application.name=value"});
    refused("torus.steps=4", {"no application 'torus' (ring, rc, mesh)"});
    refused("cx.ring.messages=4", {"no application 'cx'"});
    refused("mesh.messages=4", {"mesh has no parameter 'messages'", "steps, message_bytes"});
    refused("ring.tag=4", {"ring has no parameter 'tag'"});
    refused("ring.messages=-1", {"'-1' is not a whole number from 0 to 10^15"});
    refused("ring.messages=", {"'' is not a whole number"});
    refused("ring.messages=1e3", {"'1e3' is not a whole number"});
    refused("ring.messages=1000000000000001", {"is not a whole number from 0 to 10^15"});
    refused("ring.messages=2.5", {"'2.5' is not a whole number"});
    refused("rc.dispatch_share=-0.5", {"'-0.5' is not a number from 0 to 10^15"});
    refused("rc.dispatch_share=half", {"'half' is not a number"});
    // A value the application cannot run with is the application's to refuse, naming it and the rank.
    nist::study_config z;
    nist::set_parameter(z, "ring.messages=0");
    z.dilations = {1};
    std::array<std::string, 2> said;
    comet::threads::run(2, [&](comet::threads::transport& t) {
        try {
            nist::dilation_study(t, nist::application::ring, z);
        } catch (const comet::invalid_argument& e) {
            said[static_cast<std::size_t>(t.rank())] = e.what();
        }
    });
    for (const std::string& s : said) BOOST_TEST(comet_test::mentions(std::runtime_error(s), {"ring: messages = 0"}), s);
}

#if COMET_TEST_HAS_NX2
BOOST_AUTO_TEST_CASE(a_record_names_the_parameters_that_are_not_the_seeds) {
    auto cfg = small();
    cfg.settings = {nist::setting::cm};
    cfg.dilations = {1};
    const auto out = comet::nx2::run(comet::nx2::ipsc860(2), [&](comet::nx2::transport& t) {
        return nist::dilation_study(t, nist::application::mesh, cfg);
    });
    BOOST_REQUIRE_EQUAL(out[0].records.size(), 1u);
    BOOST_TEST(out[0].records[0].params.integer("mesh.steps").value_or(-1) == 5);
    BOOST_TEST(!out[0].records[0].params.contains("mesh.message_bytes"));
}
#endif

BOOST_AUTO_TEST_CASE(bad_studies_are_refused) {
    // Each rank keeps what it was told; the checks run on the test's own thread (Boost.Test's
    // assertions are not for several threads at once).
    const auto refused = [](nist::study_config c, std::initializer_list<const char*> words) {
        std::array<std::string, 2> said;
        comet::threads::run(2, [&](comet::threads::transport& t) {
            try {
                nist::dilation_study(t, nist::application::ring, c);
            } catch (const comet::invalid_argument& e) {
                said[static_cast<std::size_t>(t.rank())] = e.what();
            }
        });
        for (const std::string& s : said) BOOST_TEST(comet_test::mentions(std::runtime_error(s), words), s);
    };
    auto c = small();
    c.dilations = {1, 0.5};
    refused(c, {"ring: dilation factor 0.5 is outside 1..1e6"});
    c = small();
    c.settings.clear();
    refused(c, {"ring: no setting given"});
    c = small();
    c.trials = 0;
    refused(c, {"trials = 0"});
    c = small();
    c.test_node = 2;
    refused(c, {"test node 2 is outside 0..1"});
}

BOOST_AUTO_TEST_SUITE_END()
