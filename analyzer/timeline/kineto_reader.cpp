#include "analyzer/timeline/kineto_reader.hpp"

#include "analyzer/base/input_error.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <optional>

namespace roofline::timeline {
namespace {

using json = nlohmann::json;

// What an event is, from its `cat` (older PyTorch writes Kernel, Memcpy, Memset, Runtime, Operator).
enum class category { other, kernel, memcpy, memset, runtime, cpu_op, annotation, python };

category category_of(std::string_view cat) {
    if (cat == "kernel" || cat == "Kernel") return category::kernel;
    if (cat == "gpu_memcpy" || cat == "Memcpy") return category::memcpy;
    if (cat == "gpu_memset" || cat == "Memset") return category::memset;
    if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return category::runtime;
    if (cat == "cpu_op" || cat == "Operator") return category::cpu_op;
    if (cat == "user_annotation") return category::annotation;
    if (cat == "python_function") return category::python;
    return category::other;
}

// A Python frame of the user's program ("train.py(42): step") or a module range ("nn.Module: Linear_0"),
// not one of torch's own frames, an installed package's, the interpreter's or a built-in's: those say
// how PyTorch dispatches, not where in the user's code the work came from.
bool is_user_frame(std::string_view name) {
    if (name.rfind("nn.Module: ", 0) == 0) return true;
    for (std::string_view inside : {"torch/", "site-packages/", "dist-packages/", "<built-in", "threading.py",
                                    "runpy.py", "<frozen", "contextlib.py", "functools.py"})
        if (name.find(inside) != std::string_view::npos) return false;
    // Kineto names an installed package's file from its package folder ("numpy/_core/_methods.py(115): _mean"):
    // the libraries a data pipeline or model calls most are theirs, not the user's.
    for (std::string_view package : {"numpy/", "scipy/", "PIL/", "torchvision/", "torchaudio/", "transformers/", "cv2/",
                                     "pandas/", "sklearn/", "triton/", "tqdm/", "accelerate/", "datasets/"})
        if (name.rfind(package, 0) == 0) return false;
    return name.find(".py(") != std::string_view::npos;
}

// A ts or dur in microseconds to integer nanoseconds, from the number's own text where it has one
// ("4703641123.456" is exact; the double nearest it is not, at 4.7e12 microseconds).
std::int64_t micros_to_ns(double value, const std::string& text) {
    std::int64_t whole = 0, fraction = 0;
    int digits = 0;
    bool negative = false, after_point = false;
    for (char ch : text) {
        if (ch == '-' && !negative && whole == 0 && !after_point) {
            negative = true;
        } else if (ch == '.' && !after_point) {
            after_point = true;
        } else if (ch >= '0' && ch <= '9') {
            if (!after_point) {
                if (whole > (INT64_MAX / 10000)) return std::llround(value * 1000.0);
                whole = whole * 10 + (ch - '0');
            } else if (digits < 4) {  // the fourth decimal rounds the third (ns)
                fraction = fraction * 10 + (ch - '0');
                ++digits;
            }
        } else {  // an exponent: the double is as good as the text
            return std::llround(value * 1000.0);
        }
    }
    while (digits < 4) fraction *= 10, ++digits;
    const std::int64_t ns = whole * 1000 + (fraction + 5) / 10;
    return negative ? -ns : ns;
}

// The fields of one event the analysis reads; everything else is skipped as it streams by.
struct pending_event {
    char ph = 0;
    category cat = category::other;
    std::string name;
    std::optional<std::int64_t> pid, tid, ts, dur;
    bool out_of_range = false;  // a ts or dur no 64-bit count of nanoseconds holds
    bool pid_is_text = false;
    std::string tid_text;
    std::optional<std::int64_t> correlation, device, stream, bytes;
    std::array<std::int64_t, 3> grid{};  // args.grid: [x, y, z] (no allocation per event)
    std::size_t grid_dims = 0;
};

enum class field {
    none,
    ph,
    cat,
    name,
    pid,
    tid,
    ts,
    dur,
    args,
    correlation,
    device,
    stream,
    bytes,
    grid,
    dev_id,
    dev_name,
    dev_major,
    dev_minor,
    dev_sms,
    rank,
    world_size
};

field event_field(std::string_view key_name) {
    if (key_name == "ph") return field::ph;
    if (key_name == "cat") return field::cat;
    if (key_name == "name") return field::name;
    if (key_name == "pid") return field::pid;
    if (key_name == "tid") return field::tid;
    if (key_name == "ts") return field::ts;
    if (key_name == "dur") return field::dur;
    if (key_name == "args") return field::args;
    return field::none;
}

field arg_field(std::string_view key_name) {
    if (key_name == "correlation") return field::correlation;
    if (key_name == "device") return field::device;
    if (key_name == "stream") return field::stream;
    if (key_name == "bytes") return field::bytes;
    if (key_name == "grid") return field::grid;
    return field::none;
}

field device_field(std::string_view key_name) {
    if (key_name == "id") return field::dev_id;
    if (key_name == "name") return field::dev_name;
    if (key_name == "computeMajor") return field::dev_major;
    if (key_name == "numSms") return field::dev_sms;
    if (key_name == "computeMinor") return field::dev_minor;
    return field::none;
}

copy_direction direction_of(std::string_view name) {
    if (name.find("HtoD") != std::string_view::npos) return copy_direction::host_to_device;
    if (name.find("DtoH") != std::string_view::npos) return copy_direction::device_to_host;
    if (name.find("DtoD") != std::string_view::npos) return copy_direction::device_to_device;
    if (name.find("PtoP") != std::string_view::npos) return copy_direction::peer;
    return copy_direction::other;
}

// What fail() throws: the index of the bad event among traceEvents, and what is wrong with it.
struct bad_event {
    std::size_t index;
    std::string what;
};

// Depths: 1 the document, 2 traceEvents (or deviceProperties), 3 an event, 4 its args, 5+ inside args.
class kineto_sax {
public:
    kineto_sax(byte_source& source, const std::string& file, trace& target)
        : source_(source), file_(file), t_(target) {}

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t value) { return integer(value, static_cast<double>(value), {}); }
    bool number_unsigned(json::number_unsigned_t value) {
        return integer(value > json::number_unsigned_t(INT64_MAX) ? INT64_MAX : std::int64_t(value), double(value), {});
    }
    bool number_float(json::number_float_t value, const std::string& text) {
        // Integers only where they are ids (pid, tid, correlation, ...): a float beyond their range is 0.
        const std::int64_t whole = std::fabs(value) < 9.0e18 ? static_cast<std::int64_t>(std::llround(value)) : 0;
        return integer(whole, value, text);
    }
    bool binary(json::binary_t&) { return true; }
    bool string(std::string& text) {
        if (section_ == section::events && depth_ == 3) {
            switch (field_) {
                case field::ph:
                    e_.ph = text.empty() ? 0 : text[0];
                    break;
                case field::cat:
                    e_.cat = category_of(text);
                    break;
                case field::name:
                    e_.name = std::move(text);
                    break;
                case field::pid:
                    e_.pid_is_text = true;
                    break;
                case field::tid:
                    e_.tid_text = std::move(text);
                    break;
                default:
                    break;
            }
        } else if (section_ == section::devices && depth_ == 3 && field_ == field::dev_name) {
            device_.name = std::move(text);
        }
        return true;
    }
    bool key(std::string& key_name) {
        if (depth_ == 1) {
            next_section_ = key_name == "traceEvents"        ? section::events
                            : key_name == "deviceProperties" ? section::devices
                                                             : section::none;
            if (next_section_ == section::events) saw_events_ = true;
            in_distributed_ = key_name == "distributedInfo";
        } else if (depth_ == 2 && section_ == section::distributed) {
            field_ = key_name == "rank" ? field::rank : key_name == "world_size" ? field::world_size : field::none;
        } else if (section_ == section::events && depth_ == 3) {
            field_ = event_field(key_name);
        } else if (section_ == section::events && depth_ == 4) {
            field_ = arg_field(key_name);
        } else if (section_ == section::devices && depth_ == 3) {
            field_ = device_field(key_name);
        }
        return true;
    }
    bool start_object(std::size_t) {
        ++depth_;
        // distributedInfo: {"backend": "nccl", "rank": 1, "world_size": 2, ...} (a trace taken under
        // torch.distributed): which rank's trace this is.
        if (depth_ == 2 && in_distributed_) section_ = section::distributed;
        if (depth_ == 3 && section_ == section::events) {
            e_ = pending_event{};
            // Locating pass: the event that failed is this one; its brace is the byte before.
            if (locate_ && event_index_ == *locate_) {
                located_ = source_.offset() - 1;
                return false;
            }
            ++event_index_;
        } else if (depth_ == 3 && section_ == section::devices) {
            device_ = device_info{};
        }
        field_ = field::none;
        return true;
    }
    bool end_object() {
        if (depth_ == 3 && section_ == section::events) finish_event();
        if (depth_ == 3 && section_ == section::devices) t_.devices.push_back(device_);
        if (depth_ == 4) field_ = field::none;
        --depth_;
        if (depth_ == 1) section_ = section::none, in_distributed_ = false;
        return true;
    }
    bool start_array(std::size_t) {
        ++depth_;
        // A trace may be a bare array of events (the Chrome trace format allows it).
        if (depth_ == 1) {
            section_ = section::events, depth_ = 2, saw_events_ = true, bare_array_ = true;
        } else if (depth_ == 2) {
            section_ = next_section_;
        }
        return true;
    }
    bool end_array() {
        --depth_;
        if (depth_ == 1) section_ = section::none;
        if (bare_array_ && depth_ == 1) depth_ = 0;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        const auto [line, column] = line_column(file_, position > 0 ? position - 1 : 0);
        std::string what = ex.what();
        // "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..." -> the reason.
        if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
        throw input_error(
            error_code::bad_trace, file_, line, column,
            "the trace is not valid JSON (" + what + ")" +
                (what.find("end of input") != std::string::npos ? "; the file ends early: was the capture cut short?"
                                                                : ""));
    }

    bool saw_events() const { return saw_events_; }
    // The locating pass: stop at the event of this index and keep its offset.
    void locate(std::size_t index) { locate_ = index; }
    std::uint64_t located() const { return located_; }

private:
    enum class section { none, events, devices, distributed };

    bool integer(std::int64_t whole, double value, const std::string& text) {
        if (section_ == section::events && depth_ == 3) {
            switch (field_) {
                case field::pid:
                    e_.pid = whole;
                    break;
                case field::tid:
                    e_.tid = whole;
                    break;
                case field::ts:
                    e_.ts = time_ns(whole, value, text);
                    break;
                case field::dur:
                    e_.dur = time_ns(whole, value, text);
                    break;
                default:
                    break;
            }
        } else if (section_ == section::events && depth_ == 4) {
            switch (field_) {
                case field::correlation:
                    e_.correlation = whole;
                    break;
                case field::device:
                    e_.device = whole;
                    break;
                case field::stream:
                    e_.stream = whole;
                    break;
                case field::bytes:
                    e_.bytes = whole;
                    break;
                default:
                    break;
            }
        } else if (section_ == section::events && depth_ == 5 && field_ == field::grid) {
            if (e_.grid_dims < 3) e_.grid[e_.grid_dims++] = whole;
        } else if (section_ == section::distributed && depth_ == 2) {
            if (field_ == field::rank && whole >= 0 && whole < 1'000'000) t_.rank = static_cast<int>(whole);
            if (field_ == field::world_size && whole > 0 && whole < 1'000'000) t_.world_size = static_cast<int>(whole);
        } else if (section_ == section::devices && depth_ == 3) {
            if (field_ == field::dev_id) device_.id = static_cast<std::int32_t>(whole);
            if (field_ == field::dev_major) device_.compute_major = static_cast<int>(whole);
            if (field_ == field::dev_sms && whole > 0 && whole < 1'000'000) device_.sm_count = static_cast<int>(whole);
            if (field_ == field::dev_minor) device_.compute_minor = static_cast<int>(whole);
        }
        return true;
    }

    // A ts or dur in nanoseconds, or none (and an error at the event's end) beyond +-1e15 us (31 years):
    // ts + dur must fit a 64-bit count of nanoseconds.
    std::optional<std::int64_t> time_ns(std::int64_t whole, double value, const std::string& text) {
        if (!(std::fabs(value) <= max_time_us)) {
            e_.out_of_range = true;
            return std::nullopt;
        }
        return text.empty() ? whole * 1000 : micros_to_ns(value, text);
    }
    static constexpr double max_time_us = 1e15;

    // The parse keeps no positions (it walks a bare pointer, byte_source.hpp): a bad event is found
    // again by a second, tracking pass over the file, which stops at its index (read_kineto).
    [[noreturn]] void fail(const std::string& what) const { throw bad_event{event_index_ - 1, what}; }

    // A CPU thread: its OS tid, or for the few events with a text tid, a negative id of that text.
    std::int64_t thread() {
        if (e_.tid) return *e_.tid;
        return -1 - static_cast<std::int64_t>(t_.intern(e_.tid_text));
    }

    void finish_event() {
        ++t_.events_read;
        if (e_.ph != 'X' || e_.cat == category::other) return;
        const bool gpu = e_.cat == category::kernel || e_.cat == category::memcpy || e_.cat == category::memset;
        if ((gpu || e_.cat == category::runtime) && e_.out_of_range)
            fail("\"" + e_.name + "\" has a ts or dur beyond 1e15 microseconds");
        if (gpu || e_.cat == category::runtime) {
            if (!e_.ts) fail("a " + std::string(gpu ? "GPU op" : "CUDA call") + " (\"" + e_.name + "\") without ts");
            if (!e_.dur)
                fail("a " + std::string(gpu ? "GPU op" : "CUDA call") + " (\"" + e_.name +
                     "\") without dur: a complete event (ph X) needs both");
            if (*e_.dur < 0) fail("\"" + e_.name + "\" has a negative dur");
        } else if (!e_.ts || !e_.dur || *e_.dur < 0) {
            return;  // a CPU range the analysis only names things by: one it cannot place is left out
        }
        const std::int64_t start = *e_.ts, end = *e_.ts + *e_.dur;
        if (gpu) {
            gpu_op op;
            op.start_ns = start;
            op.end_ns = end;
            if (e_.device) {
                op.device = static_cast<std::int32_t>(*e_.device);
            } else if (e_.pid && !e_.pid_is_text) {
                op.device = static_cast<std::int32_t>(*e_.pid);
            } else {
                fail("GPU op \"" + e_.name + "\" names no device: its pid is not a number and args has no device");
            }
            op.stream = e_.stream ? *e_.stream : e_.tid ? *e_.tid : -1;
            op.correlation = e_.correlation.value_or(-1);
            op.bytes = e_.bytes ? static_cast<std::uint64_t>(std::max<std::int64_t>(0, *e_.bytes)) : 0;
            op.kind = e_.cat == category::kernel   ? op_kind::kernel
                      : e_.cat == category::memcpy ? op_kind::memcpy
                                                   : op_kind::memset;
            if (op.kind == op_kind::memcpy) {
                op.direction = direction_of(e_.name);
                op.pageable = e_.name.find("Pageable") != std::string::npos;
            }
            op.communication = op.kind == op_kind::kernel && is_communication_kernel(e_.name);
            if (op.kind == op_kind::kernel && e_.grid_dims == 3) {
                double blocks = 1.0;
                for (auto extent : e_.grid) blocks *= double(extent);
                if (blocks >= 1.0 && blocks < 4e9) op.grid_blocks = static_cast<std::uint32_t>(blocks);
            }
            op.name = t_.intern(e_.name);
            t_.ops.push_back(op);
        } else if (e_.cat == category::runtime) {
            api_call call;
            call.start_ns = start;
            call.end_ns = end;
            call.correlation = e_.correlation.value_or(-1);
            call.thread = thread();
            call.kind = classify_call(e_.name);
            call.name = t_.intern(e_.name);
            t_.calls.push_back(call);
        } else if (e_.cat == category::cpu_op) {
            t_.cpu_ops.push_back({start, end, thread(), t_.intern(e_.name)});
        } else if (e_.cat == category::python && is_user_frame(e_.name)) {
            t_.py_frames.push_back({start, end, thread(), t_.intern(e_.name)});
        } else if (e_.cat == category::python) {
            if (auto mark = mark_of(e_.name, true)) {
                mark->range = {start, end, thread(), t_.intern(e_.name)};
                t_.marks.push_back(*mark);
            }
        } else if (e_.cat == category::annotation && e_.name.rfind("ProfilerStep#", 0) == 0) {
            t_.steps.push_back({start, end, thread(), t_.intern(e_.name)});
        } else if (e_.cat == category::annotation) {
            if (auto mark = mark_of(e_.name, false)) {
                mark->range = {start, end, thread(), t_.intern(e_.name)};
                t_.marks.push_back(*mark);
            }
        }
    }

    byte_source& source_;
    const std::string& file_;
    trace& t_;
    pending_event e_;
    device_info device_;
    section section_ = section::none, next_section_ = section::none;
    field field_ = field::none;
    int depth_ = 0;
    bool saw_events_ = false, bare_array_ = false, in_distributed_ = false;
    std::size_t event_index_ = 0;  // events of traceEvents begun so far
    std::optional<std::size_t> locate_;
    std::uint64_t located_ = 0;
};

}  // namespace

trace read_kineto(byte_source& source, const std::string& file) {
    trace parsed;
    parsed.file = file;
    parsed.form = "PyTorch profiler (Kineto) trace";
    kineto_sax sax(source, file, parsed);
    try {
        json::sax_parse(source.begin(), source.end(), &sax);
    } catch (const bad_event& bad) {
        trace scratch;
        byte_source again(file);
        kineto_sax locator(again, file, scratch);
        locator.locate(bad.index);
        json::sax_parse(again.begin_tracking(), again.end_tracking(), &locator);
        const auto [line, column] = line_column(file, locator.located());
        throw input_error(error_code::bad_trace, file, line, column, bad.what);
    }
    if (!sax.saw_events())
        throw input_error(error_code::unknown_format, file, 1, 1,
                          "a JSON document without traceEvents: not a Chrome trace (the PyTorch profiler writes one "
                          "with prof.export_chrome_trace(\"trace.json\") or tensorboard_trace_handler)");
    if (parsed.ops.empty())
        throw input_error(error_code::bad_trace, file, 0, 0,
                          "the trace holds no GPU activity (no kernel, gpu_memcpy or gpu_memset event): profile with "
                          "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]");
    return parsed;
}

}  // namespace roofline::timeline
