// comet/report/json/writer.ipp — the definitions of comet/report/json/writer.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json/writer.hpp>

namespace comet::detail::json {

COMET_DECL void write_string(std::ostream& os, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    os << '"';
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        if (c == '"' || c == '\\') {
            os << '\\' << static_cast<char>(c);
            ++i;
        } else if (c < 0x20 || c == 0x7f) {
            os << "\\u00" << hex[c >> 4] << hex[c & 0xf];
            ++i;
        } else if (c < 0x80) {
            os << static_cast<char>(c);
            ++i;
        } else {
            // Length and the allowed range of the second byte, per RFC 3629 (no overlongs, no
            // surrogates, nothing above U+10FFFF).
            std::size_t len = 0;
            unsigned char lo = 0x80, hi = 0xbf;
            if (c >= 0xc2 && c <= 0xdf) len = 2;
            else if (c >= 0xe0 && c <= 0xef) {
                len = 3;
                if (c == 0xe0) lo = 0xa0;
                if (c == 0xed) hi = 0x9f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                len = 4;
                if (c == 0xf0) lo = 0x90;
                if (c == 0xf4) hi = 0x8f;
            }
            bool ok = len > 0 && i + len <= s.size();
            for (std::size_t k = 1; ok && k < len; ++k) {
                const unsigned char b = byte(i + k);
                ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xbf);
            }
            if (ok) {
                os.write(s.data() + i, static_cast<std::streamsize>(len));
                i += len;
            } else {
                os << "\\ufffd";
                ++i;
            }
        }
    }
    os << '"';
}

COMET_DECL void write_number(std::ostream& os, double v) {
    if (!std::isfinite(v)) {
        os << "null";
        return;
    }
    char buf[400];  // fixed notation of a value just under 1e16 needs 17 digits; subnormals use exponents
    const double a = std::fabs(v);
    const auto fmt = (a == 0.0 || (a >= 1e-4 && a < 1e16)) ? std::chars_format::fixed : std::chars_format::scientific;
    const auto res = std::to_chars(buf, buf + sizeof buf, v, fmt);
    os.write(buf, res.ptr - buf);
}

}  // namespace comet::detail::json

namespace comet::detail::json {

COMET_DECL writer::writer(std::ostream& os) : os_(os) {}

COMET_DECL void writer::begin_object(bool compact) { open('{', compact); }

COMET_DECL void writer::end_object() { close('}'); }

COMET_DECL void writer::begin_array(bool compact) { open('[', compact); }

COMET_DECL void writer::end_array() { close(']'); }

COMET_DECL void writer::key(std::string_view k) {
    separate();
    write_string(os_, k);
    os_ << ": ";
    after_key_ = true;
}

COMET_DECL void writer::string(std::string_view s) {
    separate();
    write_string(os_, s);
}

COMET_DECL void writer::number(double v) {
    separate();
    write_number(os_, v);
}

COMET_DECL void writer::number(std::optional<double> v) {
    if (v)
        number(*v);
    else
        null();
}

COMET_DECL void writer::null() {
    separate();
    os_ << "null";
}

COMET_DECL void writer::boolean(bool b) {
    separate();
    os_ << (b ? "true" : "false");
}

COMET_DECL void writer::finish() { os_ << '\n'; }

COMET_DECL void writer::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (stack_.empty()) return;
    auto& top = stack_.back();
    if (!top.empty) os_ << ',';
    if (top.compact) {
        if (!top.empty) os_ << ' ';
    } else {
        newline(stack_.size());
    }
    top.empty = false;
}

COMET_DECL void writer::open(char c, bool compact) {
    separate();
    os_ << c;
    stack_.push_back({compact || (!stack_.empty() && stack_.back().compact)});
}

COMET_DECL void writer::close(char c) {
    const level l = stack_.back();
    stack_.pop_back();
    if (!l.compact && !l.empty) newline(stack_.size());
    os_ << c;
}

COMET_DECL void writer::newline(std::size_t depth) {
    os_ << '\n';
    for (std::size_t i = 0; i < depth; ++i) os_ << "  ";
}

}  // namespace comet::detail::json
