// comet/report/json_read.ipp — the definitions of comet/report/json_read.hpp's ordinary functions.
// Included at the header's end when header-only; compiled once in the compiled part
// (src/ordinary_*.cpp; comet/core/compiled.hpp).
#pragma once

#include <comet/report/json_read.hpp>

namespace comet {

namespace detail::json_read {

/// Reads the schema's parts out of the parsed document, with errors naming the line and the
/// path of the value ("results[2].samples[4]").
class reader {
public:
    explicit reader(const parser& p) : p_(p) {}

    [[noreturn]] void wrong(const value& v, const std::string& path, const std::string& expected) const {
        p_.fail_at(v.line, path + ": expected " + expected + ", found " + kind_name(v.k));
    }
    const value& need(const value& obj, std::string_view key, const std::string& path) const {
        if (const value* v = obj.find(key)) return *v;
        p_.fail_at(obj.line, path + ": expected a member \"" + std::string(key) + "\"");
    }
    const value& of(const value& v, value::kind k, const std::string& path) const {
        if (v.k != k) wrong(v, path, kind_name(k));
        return v;
    }
    std::string text(const value& v, const std::string& path) const { return of(v, value::kind::string, path).text; }
    double number(const value& v, const std::string& path) const { return of(v, value::kind::number, path).number; }
    std::int64_t integer(const value& v, const std::string& path, std::int64_t lo = 0) const {
        if (v.k != value::kind::number || !v.integral || v.integer < lo) wrong(v, path, "an integer >= " + std::to_string(lo));
        return v.integer;
    }

    void context_of(const value& doc, context& c, std::vector<std::string>& notes) const {
        if (const value* t = doc.find("transport")) c.transport = text(*t, "transport");
        if (const value* n = doc.find("nodes")) c.nodes = static_cast<int>(integer(*n, "nodes"));
        const value* ctx = doc.find("context");
        if (!ctx) return;
        of(*ctx, value::kind::object, "context");
        for (auto [key, field] : {std::pair{"comet_version", &c.comet_version}, std::pair{"host", &c.host}, std::pair{"date", &c.date},
                                  std::pair{"compiler", &c.compiler}, std::pair{"command_line", &c.command_line}})
            if (const value* v = ctx->find(key)) *field = text(*v, std::string("context.") + key);
        if (const value* extra = ctx->find("extra")) {
            of(*extra, value::kind::object, "context.extra");
            for (std::size_t i = 0; i < extra->keys.size(); ++i)
                c.extra.emplace_back(extra->keys[i], text(extra->items[i], "context.extra." + extra->keys[i]));
        }
        if (const value* ns = ctx->find("notes")) {
            of(*ns, value::kind::array, "context.notes");
            for (std::size_t i = 0; i < ns->items.size(); ++i)
                notes.push_back(text(ns->items[i], "context.notes[" + std::to_string(i) + "]"));
        }
    }

    record record_of(const value& v, const std::string& path, int version) const {
        of(v, value::kind::object, path);
        record r;
        r.kernel = text(need(v, "kernel", path), path + ".kernel");
        named(of(need(v, "params", path), value::kind::object, path + ".params"), r.params, path + ".params");
        if (const value* vs = v.find("values")) named(of(*vs, value::kind::object, path + ".values"), r.values, path + ".values");
        if (version == 1) {
            // Schema 1 kept a point's measured values among its params.
            params identity;
            for (const auto& [name, value] : r.params) (is_schema1_value(name) ? r.values : identity).set(name, value);
            r.params = std::move(identity);
        }
        r.samples = numbers(need(v, "samples", path), path + ".samples");
        if (const value* it = v.find("iterations")) r.iterations = static_cast<std::size_t>(integer(*it, path + ".iterations"));
        if (const value* o = v.find("overheads")) r.overheads = numbers(*o, path + ".overheads");
        if (const value* st = v.find("stop")) r.stop = text(*st, path + ".stop");
        if (const value* rs = v.find("rounds")) {
            // Samples per round, round after round: they must account for every sample.
            of(*rs, value::kind::array, path + ".rounds");
            std::size_t total = 0;
            for (std::size_t i = 0; i < rs->items.size(); ++i) {
                const std::string at = path + ".rounds[" + std::to_string(i) + "]";
                round_count c;
                if (version == 1) {  // a count of samples
                    c.samples = static_cast<std::size_t>(integer(rs->items[i], at, 1));
                    c.iterations = r.iterations;
                } else {
                    const value& x = of(rs->items[i], value::kind::object, at);
                    c.samples = static_cast<std::size_t>(integer(need(x, "samples", at), at + ".samples", 1));
                    c.iterations = static_cast<std::size_t>(integer(need(x, "iterations", at), at + ".iterations"));
                }
                r.rounds.push_back(c);
                total += c.samples;
            }
            if (total != r.samples.size())
                p_.fail_at(rs->line, path + ".rounds: the rounds' counts add up to " + std::to_string(total) + ", not to the " +
                                         std::to_string(r.samples.size()) + " samples");
        }
        if (const value* in = v.find("invalid")) {
            of(*in, value::kind::object, path + ".invalid");
            for (std::size_t k = 0; k < in->keys.size(); ++k) {
                const std::string at = path + ".invalid." + in->keys[k];
                const value& list = of(in->items[k], value::kind::array, at);
                for (std::size_t i = 0; i < list.items.size(); ++i) {
                    const auto index = static_cast<std::size_t>(integer(list.items[i], at + "[" + std::to_string(i) + "]"));
                    if (index >= r.samples.size())
                        p_.fail_at(list.items[i].line, at + ": sample " + std::to_string(index) + " of " + std::to_string(r.samples.size()));
                    mark_invalid(r, index, in->keys[k]);
                }
            }
        }
        if (const value* d = v.find("dropped")) {
            of(*d, value::kind::object, path + ".dropped");
            for (std::size_t k = 0; k < d->keys.size(); ++k)
                add_dropped(r, d->keys[k], static_cast<std::size_t>(integer(d->items[k], path + ".dropped." + d->keys[k])));
        }
        if (const value* fs = v.find("flags")) {
            of(*fs, value::kind::array, path + ".flags");
            for (std::size_t i = 0; i < fs->items.size(); ++i) {
                const std::string at = path + ".flags[" + std::to_string(i) + "]";
                const value& f = of(fs->items[i], value::kind::object, at);
                add_flag(r, text(need(f, "what", at), at + ".what"), text(need(f, "why", at), at + ".why"));
            }
        }
        if (const value* ns = v.find("notes")) {
            of(*ns, value::kind::array, path + ".notes");
            for (std::size_t i = 0; i < ns->items.size(); ++i)
                r.notes.push_back(text(ns->items[i], path + ".notes[" + std::to_string(i) + "]"));
        }
        return r;
    }

private:
    /// The members of `o` (integers, numbers, words) into `into`, in order.
    void named(const value& o, params& into, const std::string& path) const {
        for (std::size_t i = 0; i < o.keys.size(); ++i) {
            const value& p = o.items[i];
            if (p.k == value::kind::string) into.set(o.keys[i], param_value(p.text));
            else if (p.k == value::kind::number && p.integral) into.set(o.keys[i], param_value(p.integer));
            else if (p.k == value::kind::number) into.set(o.keys[i], param_value(p.number));
            else wrong(p, path + "." + o.keys[i], "an integer, a number or a string");
        }
    }

    /// The params a schema-1 file held that were measured values, not a point's identity (what
    /// `record::values` holds since schema 2). Read only, for files of earlier runs.
    static bool is_schema1_value(std::string_view name) {
        static constexpr std::string_view names[] = {
            "implementation", "form", "order", "seed", "closing_barrier", "elapsed", "handshake", "window", "widenings",
            "overruns", "measurements", "clock_error", "lead", "exchanges", "estimated_error", "true_error", "blocking",
            "compute", "t_init", "t_test", "t_wait", "hidden", "tests", "workload", "curve", "user", "logical", "physical",
            "overhead", "lm_percent", "mean_logical", "max_logical", "data_messages", "control_messages", "retries", "grain",
            "speedup", "estimate", "estimate_b0", "estimate_b1", "estimate_residual"};
        return std::find(std::begin(names), std::end(names), name) != std::end(names);
    }

    std::vector<double> numbers(const value& v, const std::string& path) const {
        of(v, value::kind::array, path);
        std::vector<double> out;
        out.reserve(v.items.size());
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            const value& x = v.items[i];
            // comet writes null for a sample that is not a finite number: it cannot be compared.
            if (x.k != value::kind::number) wrong(x, path + "[" + std::to_string(i) + "]", "a number");
            out.push_back(x.number);
        }
        return out;
    }

    const parser& p_;
};

}  // namespace detail::json_read

COMET_DECL results_file read_results(std::string_view text, std::string_view source) {
    using detail::json_read::value;
    detail::json_read::parser p(text, source);
    const value doc = p.document();
    const detail::json_read::reader rd(p);
    if (doc.k != value::kind::object) rd.wrong(doc, "the document", "an object (comet's results.json)");
    const value* schema = doc.find("schema_version");
    if (!schema) {
        if (doc.find("benchmarks")) p.fail_at(doc.line, "a Google Benchmark file (gbench.json), not comet's results.json");
        p.fail_at(doc.line, "expected a member \"schema_version\" (is it comet's results.json?)");
    }
    const auto v = rd.integer(*schema, "schema_version");
    if (v != results_schema_version && v != 1)
        p.fail_at(schema->line, "schema_version " + std::to_string(v) + ": this comet reads versions 1 and " +
                                     std::to_string(results_schema_version));
    results_file out;
    rd.context_of(doc, out.ctx, out.notes);
    const value& results = rd.of(rd.need(doc, "results", "the document"), value::kind::array, "results");
    for (std::size_t i = 0; i < results.items.size(); ++i)
        out.results.records.push_back(rd.record_of(results.items[i], "results[" + std::to_string(i) + "]", static_cast<int>(v)));
    return out;
}

COMET_DECL results_file read_results_file(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) raise<invalid_argument>(-1, path.string(), ": a folder, not a file");
    std::ifstream f(path, std::ios::binary);
    if (!f) raise<invalid_argument>(-1, path.string(), ": ", std::filesystem::exists(path, ec) ? "cannot be read" : "no such file");
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) raise<invalid_argument>(-1, path.string(), ": reading failed");
    return read_results(text, path.string());
}

}  // namespace comet

namespace comet::detail::json_read {

COMET_DECL parser::parser(std::string_view text, std::string_view source) : s_(text), source_(source) {}

COMET_DECL value parser::document() {
    skip_space();
    value v = parse(0);
    skip_space();
    if (i_ < s_.size()) fail("expected the end of the file after the value, found " + found());
    return v;
}

COMET_DECL void parser::fail(const std::string& what) const { fail_at(line_, what); }

COMET_DECL void parser::fail_at(std::size_t line, const std::string& what) const {
    raise<invalid_argument>(-1, source_, ':', line, ": ", what);
}

COMET_DECL std::string parser::found() const {
    if (i_ >= s_.size()) return "the end of the file";
    const char c = s_[i_];
    if (static_cast<unsigned char>(c) < 0x20) return "a control character";
    return std::string("'") + c + "'";
}

COMET_DECL void parser::skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
        if (s_[i_] == '\n') ++line_;
        ++i_;
    }
}

COMET_DECL bool parser::take(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
        ++i_;
        return true;
    }
    return false;
}

COMET_DECL void parser::literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("expected a value, found " + found());
    i_ += word.size();
}

COMET_DECL value parser::parse(std::size_t depth) {
    if (depth > max_depth) fail("nested deeper than " + std::to_string(max_depth) + " levels");
    value v;
    v.line = line_;
    if (i_ >= s_.size()) fail("expected a value, found the end of the file");
    switch (s_[i_]) {
        case '{': parse_object(v, depth); break;
        case '[': parse_array(v, depth); break;
        case '"':
            v.k = value::kind::string;
            v.text = parse_string();
            break;
        case 't':
            literal("true");
            v.k = value::kind::boolean;
            v.boolean = true;
            break;
        case 'f':
            literal("false");
            v.k = value::kind::boolean;
            break;
        case 'n': literal("null"); break;
        default: parse_number(v);
    }
    return v;
}

COMET_DECL void parser::parse_object(value& v, std::size_t depth) {
    v.k = value::kind::object;
    ++i_;
    skip_space();
    if (take('}')) return;
    for (;;) {
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name in quotes, found " + found());
        std::string key = parse_string();
        for (const auto& k : v.keys)
            if (k == key) fail("duplicate member name \"" + key + "\"");
        skip_space();
        if (!take(':')) fail("expected ':' after the member name \"" + key + "\", found " + found());
        skip_space();
        v.keys.push_back(std::move(key));
        v.items.push_back(parse(depth + 1));
        skip_space();
        if (take('}')) return;
        if (!take(',')) fail("expected ',' or '}' after a member, found " + found());
    }
}

COMET_DECL void parser::parse_array(value& v, std::size_t depth) {
    v.k = value::kind::array;
    ++i_;
    skip_space();
    if (take(']')) return;
    for (;;) {
        skip_space();
        v.items.push_back(parse(depth + 1));
        skip_space();
        if (take(']')) return;
        if (!take(',')) fail("expected ',' or ']' after an array element, found " + found());
    }
}

COMET_DECL unsigned parser::hex4() {
    unsigned u = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
        const char c = i_ < s_.size() ? s_[i_] : '\0';
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) fail("expected 4 hex digits after \\u, found " + found());
        u = u * 16 + static_cast<unsigned>(d);
    }
    return u;
}

COMET_DECL void parser::append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

COMET_DECL std::string parser::parse_string() {
    ++i_;  // the opening quote
    std::string out;
    for (;;) {
        if (i_ >= s_.size()) fail("expected '\"' to close the string, found the end of the file");
        const char c = s_[i_];
        if (c == '"') {
            ++i_;
            return out;
        }
        if (static_cast<unsigned char>(c) < 0x20) fail("expected '\"' to close the string, found a control character (escape it)");
        if (c != '\\') {
            out += c;
            ++i_;
            continue;
        }
        ++i_;
        const char e = i_ < s_.size() ? s_[i_] : '\0';
        ++i_;
        switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xd800 && cp <= 0xdbff) {  // a high surrogate: its low half must follow
                    if (!(take('\\') && take('u'))) fail("expected a low surrogate \\uDC00..\\uDFFF after \\u" + std::to_string(cp));
                    const unsigned lo = hex4();
                    if (lo < 0xdc00 || lo > 0xdfff) fail("expected a low surrogate \\uDC00..\\uDFFF after a high one");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    fail("a low surrogate \\u escape without a high one before it");
                }
                append_utf8(out, cp);
                break;
            }
            default:
                --i_;
                fail("expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX) after '\\', found " + found());
        }
    }
}

COMET_DECL void parser::parse_number(value& v) {
    const std::size_t start = i_;
    const auto digits = [&] {
        const std::size_t from = i_;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
        return i_ - from;
    };
    take('-');
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') {
        if (i_ == start) fail("expected a value, found " + found());
        fail("expected a digit after '-', found " + found());
    }
    if (take('0')) {
        if (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') fail("a number has a leading zero");
    } else {
        digits();
    }
    bool integral = true;
    if (take('.')) {
        integral = false;
        if (digits() == 0) fail("expected a digit after the decimal point, found " + found());
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        integral = false;
        ++i_;
        if (!take('+')) take('-');
        if (digits() == 0) fail("expected a digit in the exponent, found " + found());
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + i_;
    v.k = value::kind::number;
    const auto [end, ec] = std::from_chars(first, last, v.number);
    if (ec != std::errc() || end != last || !std::isfinite(v.number))
        fail("the number " + std::string(first, last) + " is out of the range of a double");
    if (integral) {
        const auto [iend, iec] = std::from_chars(first, last, v.integer);
        v.integral = iec == std::errc() && iend == last;
    }
}

}  // namespace comet::detail::json_read
