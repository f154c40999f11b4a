// Reads the rest of a raw page on several threads: worker threads take turns reading the stream
// in row-aligned blocks, each splits and parses the rows of the block it read, and the calling
// thread hands the parsed launches on in input order. The sink sees exactly the launches, in exactly the
// order, that the one-thread reader would give it, so every later stage (and every report) is the
// same byte for byte whatever the thread count.
//
// Workers take only what the fast path takes: a line of "..." fields (field_scan.hpp) that the row
// parser reads without an error. At the first line they do not take (a quote inside a field, a
// field over a line break, a line too long, any input error) they stop, and read_rows_in_parallel
// returns the unread bytes from that line on: the one-thread reader goes on from there to the end
// of the input, and makes the exact error message where there is one. Staying on one thread after
// that bounds the cost of a file with many odd lines to one hand-over.
//
// Memory: at most `workers + 2` blocks are in flight, each `block_bytes` plus one line.
#pragma once

#include "analyzer/read/csv_records.hpp"
#include "analyzer/read/launch_record.hpp"

#include <cstddef>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

// Parses one row into a launch record, throwing input_error when it cannot. Each worker thread
// has its own parser: one must not share mutable state with another.
using row_parser = std::function<void(const csv_record& row, launch_record& out)>;

struct parallel_options {
    std::size_t block_bytes = std::size_t(1)
                              << 20;  // ~17 raw-page rows of --set full; stays in a core's L2 while it is parsed
};

struct parallel_outcome {
    bool finished = false;         // the input's end was reached; otherwise `rest` is still to be read
    std::string rest;              // from the first line the workers did not take, through what was read of the stream
    std::size_t lines_before = 0;  // lines before `rest` (its first line is lines_before + 1)
    std::size_t skipped = 0;       // lines that are not CSV rows (not starting with a quote), as csv_records skips them
};

// `first` are bytes already read from `in` (csv_records::unread()), starting at line
// `lines_before + 1`. `deliver` gets each launch, its line set, in input order, on the calling
// thread; an exception from it stops the workers and propagates. One parser per worker.
parallel_outcome read_rows_in_parallel(std::istream& in, std::string_view first, std::size_t lines_before,
                                       std::vector<row_parser> parsers, const parallel_options& options,
                                       const std::function<void(launch_record&&)>& deliver);

}  // namespace roofline
