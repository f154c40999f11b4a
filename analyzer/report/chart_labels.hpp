// The chart's text geometry: how wide a line of text renders, and where each point's number label
// goes (beside its point, clear of every point, of the labels placed before it and of the panel's
// edges). Pure: the same points give the same places.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace roofline {

struct text_box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const text_box& other) const {
        return x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1;
    }
    bool inside(const text_box& other) const {
        return x0 >= other.x0 && x1 <= other.x1 && y0 >= other.y0 && y1 <= other.y1;
    }
};

// The width in pixels of one line of text in DejaVu Sans (what browsers on Linux draw for
// "sans-serif", and wider than the Windows and macOS defaults), from its advance widths; UTF-8
// characters outside ASCII count as wide ones. Layout and tests both use it, so nothing is clipped.
double text_width(const std::string& text, double font_size, bool bold = false);

struct label_point {
    double centre_x = 0, centre_y = 0, radius = 0;  // the point's centre and radius, pixels
    std::string text;                               // its label ("12")
};

struct label_place {
    bool placed = false;
    double text_x = 0, text_y = 0;  // the text's start and baseline
    text_box box;                   // what it covers
    bool leader = false;            // away from its point: a line joins them
    double lx0 = 0, ly0 = 0, lx1 = 0, ly1 = 0;
};

// Labels in the order given (the most important first): each tries eight directions around its
// point at four distances, taking the first place inside `area` that covers no point and no label
// already placed; a label with no such place is not placed (the caller lists it instead).
std::vector<label_place> place_labels(const std::vector<label_point>& points, const text_box& area, double font_size,
                                      bool bold);

}  // namespace roofline
