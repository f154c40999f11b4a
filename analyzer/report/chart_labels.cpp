#include "analyzer/report/chart_labels.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
namespace {

// DejaVu Sans advance widths in em (units per em 2048), lower and upper case.
constexpr double lower[26] = {0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278,
                              0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411,
                              0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525};
constexpr double upper[26] = {0.684, 0.686, 0.698, 0.770, 0.632, 0.575, 0.775, 0.752, 0.295,
                              0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695,
                              0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685};

double em_width(unsigned char ch) {
    if (ch >= 'a' && ch <= 'z') return lower[ch - 'a'];
    if (ch >= 'A' && ch <= 'Z') return upper[ch - 'A'];
    if (ch >= '0' && ch <= '9') return 0.636;
    switch (ch) {
        case ' ':
        case '.':
        case ',':
        case ':':
        case ';':
        case '/':
        case '!':
        case '\'':
        case '|':
            return 0.337;
        case '(':
        case ')':
        case '[':
        case ']':
        case '-':
            return 0.390;
        case '%':
        case '@':
        case '&':
            return 0.950;
        case '+':
        case '=':
        case '<':
        case '>':
        case '~':
            return 0.838;
        default:
            return 0.700;
    }
}

// Distance from a point to a box (0 inside it).
double distance(double point_x, double point_y, const text_box& box) {
    const double dx = std::max({box.x0 - point_x, 0.0, point_x - box.x1}),
                 dy = std::max({box.y0 - point_y, 0.0, point_y - box.y1});
    return std::hypot(dx, dy);
}

}  // namespace

double text_width(const std::string& text, double font_size, bool bold) {
    double em = 0;
    for (unsigned char ch : text) {
        if ((ch & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: its character is counted once
        em += ch < 0x80 ? em_width(ch) : 1.0;
    }
    return em * font_size * (bold ? 1.12 : 1.0);
}

std::vector<label_place> place_labels(const std::vector<label_point>& points, const text_box& area, double font_size,
                                      bool bold) {
    // Right, left, above, below, then the diagonals: a reader looks beside a point first.
    constexpr int dirs[8][2] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}};
    const double label_h = font_size, ascent = 0.76 * font_size;  // the box of digits: cap height plus a little
    std::vector<label_place> out(points.size());
    std::vector<text_box> taken;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const label_point& point = points[i];
        if (point.text.empty()) continue;  // an obstacle only
        const double label_w = text_width(point.text, font_size, bold);
        for (int ring = 0; ring < 4 && !out[i].placed; ++ring) {
            const double gap = point.radius + 2 + ring * 9;
            for (const auto& dir : dirs) {
                // The box's centre: out along the direction by the gap and half the box.
                const double cx = point.centre_x + dir[0] * (gap + label_w / 2),
                             cy = point.centre_y + dir[1] * (gap + label_h / 2);
                text_box box{cx - label_w / 2, cy - label_h / 2, cx + label_w / 2, cy + label_h / 2};
                if (!box.inside(area)) continue;
                bool clear = std::none_of(taken.begin(), taken.end(),
                                          [&](const text_box& placed) { return placed.overlaps(box); });
                for (std::size_t j = 0; clear && j < points.size(); ++j)
                    clear = distance(points[j].centre_x, points[j].centre_y, box) > points[j].radius + 0.5;
                if (!clear) continue;
                label_place& place = out[i];
                place.placed = true;
                place.box = box;
                place.text_x = box.x0;
                place.text_y = cy + ascent / 2;
                if (ring > 0) {  // far from its point: a leader from the circle's edge to the box
                    const double bx = std::clamp(point.centre_x, box.x0, box.x1),
                                 by = std::clamp(point.centre_y, box.y0, box.y1);
                    const double len = std::hypot(bx - point.centre_x, by - point.centre_y);
                    place.leader = len > point.radius + 1;
                    place.lx0 = point.centre_x + (bx - point.centre_x) / len * point.radius,
                    place.ly0 = point.centre_y + (by - point.centre_y) / len * point.radius, place.lx1 = bx,
                    place.ly1 = by;
                }
                taken.push_back({box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1});
                break;
            }
        }
    }
    return out;
}

}  // namespace roofline
