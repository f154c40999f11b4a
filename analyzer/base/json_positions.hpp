// Where each value of a JSON file starts, for errors that name the value that is wrong: the rule-tree
// and GPU-spec loaders. Not installed (it includes nlohmann_json, a private dependency).
#pragma once

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace roofline {

// Where each value of a JSON file starts, from the parser itself: nlohmann's SAX interface builds the
// document while a counting iterator says how far the text has been read, so each value's first
// character is known (the bytes between the previous token and a value are only whitespace, ':' and
// ','). Looked up by the address of the value in the parsed document, so an error in any value is
// located exactly, however often its text appears in the file.
class value_positions {
public:
    // Parses `text` (a syntax error throws as json::parse does; parse_json_file has already refused one).
    value_positions(const std::string& text, nlohmann::json& document) : text_(text) {
        std::size_t read = 0;
        counting first{text.data(), &read}, last{text.data() + text.size(), &read};
        recorder r(document, read, starts_);
        nlohmann::json::sax_parse(first, last, &r);
        index(document, "");
    }
    // The 1-based line and column of the value's first character, past the opening quote of a string
    // ({0, 0}: not a value of this document, or one nested deeper than any the loader reads).
    std::pair<std::size_t, std::size_t> of(const nlohmann::json& value) const {
        auto it = by_address_.find(&value);
        if (it == by_address_.end()) return {0, 0};
        std::size_t at = it->second;
        while (at < text_.size() &&
               (std::isspace(static_cast<unsigned char>(text_[at])) || text_[at] == ':' || text_[at] == ','))
            ++at;
        if (at < text_.size() && text_[at] == '"') ++at;  // a string's first character, past its quote
        const std::size_t line = 1 + std::count(text_.begin(), text_.begin() + std::ptrdiff_t(at), '\n');
        const std::size_t line_start = text_.rfind('\n', at == 0 ? 0 : at - 1);
        return {line, at - (at == 0 || line_start == std::string::npos ? 0 : line_start + 1) + 1};
    }

private:
    // A char pointer that counts what the parser has read.
    struct counting {
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;
        const char* p;
        std::size_t* read;
        const char& operator*() const { return *p; }
        counting& operator++() {
            ++p;
            ++*read;
            return *this;
        }
        bool operator==(const counting& o) const { return p == o.p; }
        bool operator!=(const counting& o) const { return p != o.p; }
    };
    // The DOM builder, with each value's path ("/roots/0/when") mapped to the bytes read before it.
    class recorder : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
    public:
        recorder(nlohmann::json& j, const std::size_t& read, std::map<std::string, std::size_t>& starts)
            : json_sax_dom_parser(j, true), read_(read), starts_(starts) {}
        bool null() { return value(), json_sax_dom_parser::null(); }
        bool boolean(bool v) { return value(), json_sax_dom_parser::boolean(v); }
        bool number_integer(nlohmann::json::number_integer_t v) {
            return value(), json_sax_dom_parser::number_integer(v);
        }
        bool number_unsigned(nlohmann::json::number_unsigned_t v) {
            return value(), json_sax_dom_parser::number_unsigned(v);
        }
        bool number_float(nlohmann::json::number_float_t v, const std::string& s) {
            return value(), json_sax_dom_parser::number_float(v, s);
        }
        bool string(std::string& v) { return value(), json_sax_dom_parser::string(v); }
        bool start_object(std::size_t n) {
            value(read_ - 1);
            frames_.push_back({false, 0, ""});
            return json_sax_dom_parser::start_object(n);
        }
        bool key(std::string& k) {
            frames_.back().key = k;
            mark_ = read_;
            return json_sax_dom_parser::key(k);
        }
        bool end_object() {
            frames_.pop_back();
            after_value();
            return json_sax_dom_parser::end_object();
        }
        bool start_array(std::size_t n) {
            value(read_ - 1);
            frames_.push_back({true, 0, ""});
            mark_ = read_;
            return json_sax_dom_parser::start_array(n);
        }
        bool end_array() {
            frames_.pop_back();
            after_value();
            return json_sax_dom_parser::end_array();
        }

    private:
        struct frame {
            bool array;
            std::size_t index;
            std::string key;
        };
        // A scalar starts after what was read up to the previous token (mark_); an object or array
        // at its brace (`at`).
        void value(std::optional<std::size_t> at = std::nullopt) {
            if (frames_.size() > max_recorded_depth) {
                if (!at) after_value();
                return;
            }
            std::string path;
            for (const auto& f : frames_) path += "/" + (f.array ? std::to_string(f.index) : f.key);
            starts_[path] = at ? *at : mark_;
            if (!at) after_value();
        }
        void after_value() {
            if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
            mark_ = read_;
        }
        const std::size_t& read_;
        std::map<std::string, std::size_t>& starts_;
        std::vector<frame> frames_;
        std::size_t mark_ = 0;
    };

    void index(const nlohmann::json& v, const std::string& path, std::size_t depth = 0) {
        if (auto it = starts_.find(path); it != starts_.end()) by_address_[&v] = it->second;
        if (depth >= max_recorded_depth) return;
        if (v.is_object())
            for (const auto& [k, child] : v.items()) index(child, path + "/" + k, depth + 1);
        if (v.is_array())
            for (std::size_t i = 0; i < v.size(); ++i) index(v[i], path + "/" + std::to_string(i), depth + 1);
    }
    // Deeper than any value the loaders read (a rule tree's nodes nest 32 deep, two levels each, and a
    // node's values are three more down at most): not recorded, so a hostile file nested a million deep
    // costs no quadratic paths.
    static constexpr std::size_t max_recorded_depth = 72;

    const std::string& text_;
    std::map<std::string, std::size_t> starts_;
    std::unordered_map<const nlohmann::json*, std::size_t> by_address_;
};

}  // namespace roofline
