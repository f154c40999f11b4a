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

double em_width(unsigned char c) {
    if (c >= 'a' && c <= 'z') return lower[c - 'a'];
    if (c >= 'A' && c <= 'Z') return upper[c - 'A'];
    if (c >= '0' && c <= '9') return 0.636;
    switch (c) {
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
double distance(double x, double y, const text_box& b) {
    const double dx = std::max({b.x0 - x, 0.0, x - b.x1}), dy = std::max({b.y0 - y, 0.0, y - b.y1});
    return std::hypot(dx, dy);
}

}  // namespace

double text_width(const std::string& text, double font_size, bool bold) {
    double em = 0;
    for (unsigned char c : text) {
        if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: its character is counted once
        em += c < 0x80 ? em_width(c) : 1.0;
    }
    return em * font_size * (bold ? 1.12 : 1.0);
}

std::vector<label_place> place_labels(const std::vector<label_point>& points, const text_box& area, double font_size,
                                      bool bold) {
    // Right, left, above, below, then the diagonals: a reader looks beside a point first.
    constexpr int dirs[8][2] = {{1, 0}, {-1, 0}, {0, -1}, {0, 1}, {1, -1}, {-1, -1}, {1, 1}, {-1, 1}};
    const double h = font_size, ascent = 0.76 * font_size;  // the box of digits: cap height plus a little
    std::vector<label_place> out(points.size());
    std::vector<text_box> taken;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const label_point& p = points[i];
        if (p.text.empty()) continue;  // an obstacle only
        const double w = text_width(p.text, font_size, bold);
        for (int ring = 0; ring < 4 && !out[i].placed; ++ring) {
            const double d = p.r + 2 + ring * 9;
            for (const auto& dir : dirs) {
                // The box's centre: out along the direction by the gap and half the box.
                const double cx = p.x + dir[0] * (d + w / 2), cy = p.y + dir[1] * (d + h / 2);
                text_box b{cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
                if (!b.inside(area)) continue;
                bool clear = std::none_of(taken.begin(), taken.end(), [&](const text_box& t) { return t.overlaps(b); });
                for (std::size_t j = 0; clear && j < points.size(); ++j)
                    clear = distance(points[j].x, points[j].y, b) > points[j].r + 0.5;
                if (!clear) continue;
                label_place& l = out[i];
                l.placed = true;
                l.box = b;
                l.x = b.x0;
                l.y = cy + ascent / 2;
                if (ring > 0) {  // far from its point: a leader from the circle's edge to the box
                    const double bx = std::clamp(p.x, b.x0, b.x1), by = std::clamp(p.y, b.y0, b.y1);
                    const double len = std::hypot(bx - p.x, by - p.y);
                    l.leader = len > p.r + 1;
                    l.lx0 = p.x + (bx - p.x) / len * p.r, l.ly0 = p.y + (by - p.y) / len * p.r, l.lx1 = bx, l.ly1 = by;
                }
                taken.push_back({b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1});
                break;
            }
        }
    }
    return out;
}

}  // namespace roofline
