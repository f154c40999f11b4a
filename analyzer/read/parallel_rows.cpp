#include "analyzer/read/parallel_rows.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/field_scan.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace roofline {
namespace {

struct block {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0;
    std::size_t size = 0;
    // Written by the worker that parses the block, read by the calling thread once `done`:
    std::vector<launch_record> records;  // their lines count from the block's first line (1)
    std::size_t lines = 0;               // lines before `stop`, or all of the block's
    std::size_t skipped = 0;
    std::optional<std::size_t> stop;  // where the first line the workers do not take starts
    std::exception_ptr failure;       // anything but an input error (out of memory): rethrown as it is
    bool done = false;                // guarded by the workers' state mutex

    void reset() {
        size = 0;
        records.clear();
        lines = skipped = 0;
        stop.reset();
        failure = nullptr;
        done = false;
    }
};

// The rows of one block, as csv_records::next and the row parser would read them one at a time.
void parse_block(block& chunk, const row_parser& parse) {
    csv_record row;
    std::size_t at = 0;
    while (at < chunk.size) {
        const char* start = chunk.data.get() + at;
        const void* nl = std::memchr(start, '\n', chunk.size - at);
        const std::size_t length = nl ? std::size_t(static_cast<const char*>(nl) - start) : chunk.size - at;
        std::string_view text(start, length);
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (length > max_record_bytes) {
            chunk.stop = at;
            return;
        }
        if (!text.empty()) {
            if (text.front() != '"') {
                ++chunk.skipped;
            } else {
                row.line = chunk.lines + 1;
                launch_record rec;
                bool taken = detail::split_quoted_line(text, row);
                if (taken) try {
                        parse(row, rec);
                    } catch (const input_error&) {
                        taken = false;
                    }
                if (!taken) {
                    chunk.stop = at;
                    return;
                }
                chunk.records.push_back(std::move(rec));
            }
        }
        ++chunk.lines;
        at += length + (nl ? 1 : 0);
    }
}

// Cuts the stream into blocks of whole lines: a block ends at the last line break within its
// first `block_bytes`, or, where a line is longer than that, at the line's end (the last block: at
// the stream's end).
class block_source {
public:
    block_source(std::istream& in, std::string_view first, std::size_t block_bytes)
        : in_(in), carry_(first), block_bytes_(std::max<std::size_t>(block_bytes, 1)) {}

    // Fills `chunk` (a fresh or a recycled block) with the next block; false at the end of the input.
    bool next(block& chunk) {
        chunk.reset();
        reserve(chunk, std::max(carry_.size(), block_bytes_));
        if (!carry_.empty()) std::memcpy(chunk.data.get(), carry_.data(), carry_.size());
        chunk.size = carry_.size();
        carry_.clear();
        if (chunk.size < block_bytes_) read(chunk, block_bytes_ - chunk.size);
        if (chunk.size == 0) return false;
        const char* data = chunk.data.get();
        std::size_t end = std::min(chunk.size, block_bytes_);
        while (end > 0 && data[end - 1] != '\n') --end;
        std::size_t searched = std::min(chunk.size, block_bytes_);  // bytes known to hold no line break
        while (end == 0) {                                          // a line longer than the block: find its end
            if (const void* nl = std::memchr(chunk.data.get() + searched, '\n', chunk.size - searched)) {
                end = std::size_t(static_cast<const char*>(nl) - chunk.data.get()) + 1;
                break;
            }
            searched = chunk.size;
            // At the end of the input the rest is the last line; a line longer than any record goes
            // to a worker whole, which stops at it (csv_records then makes the error).
            if (eof_ || chunk.size > max_record_bytes) {
                end = chunk.size;
                break;
            }
            read(chunk, std::max(block_bytes_, min_read));
        }
        carry_.assign(chunk.data.get() + end, chunk.size - end);
        chunk.size = end;
        return true;
    }
    const std::string& carry() const { return carry_; }

private:
    static constexpr std::size_t min_read = std::size_t(64) << 10;  // while a long line's end is sought

    static void reserve(block& chunk, std::size_t bytes) {
        if (chunk.capacity >= bytes) return;
        auto bigger = std::make_unique_for_overwrite<char[]>(bytes);
        if (chunk.size > 0) std::memcpy(bigger.get(), chunk.data.get(), chunk.size);
        chunk.data = std::move(bigger);
        chunk.capacity = bytes;
    }
    // Appends up to `bytes` from the stream; fewer means its end.
    void read(block& chunk, std::size_t bytes) {
        if (eof_) return;
        if (chunk.capacity - chunk.size < bytes) reserve(chunk, std::max(chunk.size + bytes, 2 * chunk.capacity));
        in_.read(chunk.data.get() + chunk.size, std::streamsize(bytes));
        const auto got = std::size_t(in_.gcount());
        chunk.size += got;
        eof_ = got < bytes;
    }

    std::istream& in_;
    std::string carry_;  // read, not yet in a block: the start of a line, or (at first) what csv_records had read
    std::size_t block_bytes_;
    bool eof_ = false;
};

// Worker threads. Each reads the next block from the stream itself and then parses it, so that
// the bytes the read copies in are still in that core's cache when they are split: handing blocks
// read on one thread to another measured slower than one thread. Blocks enter `flight` in input
// order (they are read and queued under one lock), and at most `depth` wait there to be handed on.
class workers {
public:
    workers(block_source& source, std::vector<row_parser> parsers, std::size_t depth)
        : source_(source), parsers_(std::move(parsers)), depth_(depth) {
        try {
            for (std::size_t i = 0; i < parsers_.size(); ++i) threads_.emplace_back([this, i] { run(i); });
        } catch (...) {
            stop();
            throw;
        }
    }
    ~workers() { stop(); }
    workers(const workers&) = delete;
    workers& operator=(const workers&) = delete;

    // The next block in input order once it is parsed; nullptr when the input is all handed on.
    block* front() {
        std::unique_lock lock(state_);
        done_.wait(lock,
                   [&] { return (!flight_.empty() && flight_.front()->done) || (flight_.empty() && source_done_); });
        return flight_.empty() ? nullptr : flight_.front().get();
    }
    // The front block is handed on: its buffer is kept for a later block.
    void pop() {
        {
            std::lock_guard lock(state_);
            spares_.push_back(std::move(flight_.front()));
            flight_.pop_front();
        }
        space_.notify_one();
    }
    // Waits for the blocks being read and parsed, and ends the threads.
    void stop() {
        {
            std::lock_guard lock(state_);
            stopping_ = true;
        }
        space_.notify_all();
        for (auto& worker : threads_)
            if (worker.joinable()) worker.join();
    }
    // After stop(): the blocks read but not handed on, in input order.
    const std::deque<std::unique_ptr<block>>& in_flight() const { return flight_; }

private:
    void run(std::size_t worker_index) {
        while (true) {
            block* chunk = nullptr;
            {
                std::lock_guard reading(source_lock_);  // one reader at a time, in input order
                std::unique_ptr<block> next;
                {
                    std::unique_lock lock(state_);
                    space_.wait(lock, [&] { return stopping_ || source_done_ || flight_.size() < depth_; });
                    if (stopping_ || source_done_) return;
                    if (!spares_.empty()) {
                        next = std::move(spares_.back());
                        spares_.pop_back();
                    }
                }
                if (!next) next = std::make_unique<block>();
                bool more = false;
                try {
                    more = source_.next(*next);
                } catch (...) {  // out of memory, or the stream threw: handed on as the block's failure
                    next->reset();
                    next->failure = std::current_exception();
                    next->done = true;
                    more = true;
                }
                std::lock_guard lock(state_);
                if (!more) {
                    source_done_ = true;
                    done_.notify_all();
                    space_.notify_all();
                    return;
                }
                chunk = next.get();
                flight_.push_back(std::move(next));
                if (chunk->failure) {
                    source_done_ = true;
                    done_.notify_all();
                    space_.notify_all();
                    return;
                }
            }
            try {
                parse_block(*chunk, parsers_[worker_index]);
            } catch (...) {
                chunk->failure = std::current_exception();
            }
            {
                std::lock_guard lock(state_);
                chunk->done = true;
            }
            done_.notify_all();
        }
    }

    block_source& source_;
    std::vector<row_parser> parsers_;
    std::size_t depth_;
    std::vector<std::thread> threads_;
    std::mutex source_lock_;  // taken before state_ where both are held
    std::mutex state_;
    std::condition_variable done_, space_;
    std::deque<std::unique_ptr<block>> flight_;
    std::vector<std::unique_ptr<block>> spares_;
    bool source_done_ = false;
    bool stopping_ = false;
};

}  // namespace

parallel_outcome read_rows_in_parallel(std::istream& in, std::string_view first, std::size_t lines_before,
                                       std::vector<row_parser> parsers, const parallel_options& options,
                                       const std::function<void(launch_record&&)>& deliver) {
    parallel_outcome out;
    block_source source(in, first, options.block_bytes);
    const std::size_t depth = parsers.size() + 2;  // a block for each worker, one handed on, one spare
    std::optional<workers> pool;                   // stopped (joined) before `source` goes away
    try {
        pool.emplace(source, std::move(parsers), depth);
    } catch (const std::system_error&) {  // no threads to be had: nothing is read, one thread goes on
        out.rest = std::string(first);
        out.lines_before = lines_before;
        return out;
    }
    std::size_t base = lines_before;  // lines before the block at the front
    while (block* chunk = pool->front()) {
        if (chunk->failure) std::rethrow_exception(chunk->failure);
        for (auto& rec : chunk->records) {
            rec.line += base;
            deliver(std::move(rec));
        }
        out.skipped += chunk->skipped;
        if (chunk->stop) {
            pool->stop();
            out.lines_before = base + chunk->lines;
            const auto& flight = pool->in_flight();
            out.rest.assign(chunk->data.get() + *chunk->stop, chunk->size - *chunk->stop);
            for (std::size_t i = 1; i < flight.size(); ++i) out.rest.append(flight[i]->data.get(), flight[i]->size);
            out.rest += source.carry();
            return out;
        }
        base += chunk->lines;
        pool->pop();
    }
    out.finished = true;
    return out;
}

}  // namespace roofline
