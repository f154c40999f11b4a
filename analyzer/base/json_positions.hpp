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
        recorder builder(document, read, starts_);
        nlohmann::json::sax_parse(first, last, &builder);
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
        const char* cursor;
        std::size_t* read;
        const char& operator*() const { return *cursor; }
        counting& operator++() {
            ++cursor;
            ++*read;
            return *this;
        }
        bool operator==(const counting& other) const { return cursor == other.cursor; }
        bool operator!=(const counting& other) const { return cursor != other.cursor; }
    };
    // The DOM builder, with each value's path ("/roots/0/when") mapped to the bytes read before it.
    class recorder : public nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
    public:
        recorder(nlohmann::json& result, const std::size_t& read, std::map<std::string, std::size_t>& starts)
            : json_sax_dom_parser(result, true), read_(read), starts_(starts) {}
        bool null() { return value(), json_sax_dom_parser::null(); }
        bool boolean(bool flag) { return value(), json_sax_dom_parser::boolean(flag); }
        bool number_integer(nlohmann::json::number_integer_t number) {
            return value(), json_sax_dom_parser::number_integer(number);
        }
        bool number_unsigned(nlohmann::json::number_unsigned_t number) {
            return value(), json_sax_dom_parser::number_unsigned(number);
        }
        bool number_float(nlohmann::json::number_float_t number, const std::string& raw) {
            return value(), json_sax_dom_parser::number_float(number, raw);
        }
        bool string(std::string& text) { return value(), json_sax_dom_parser::string(text); }
        bool start_object(std::size_t elements) {
            value(read_ - 1);
            frames_.push_back({false, 0, ""});
            return json_sax_dom_parser::start_object(elements);
        }
        bool key(std::string& key_name) {
            frames_.back().key = key_name;
            mark_ = read_;
            return json_sax_dom_parser::key(key_name);
        }
        bool end_object() {
            frames_.pop_back();
            after_value();
            return json_sax_dom_parser::end_object();
        }
        bool start_array(std::size_t elements) {
            value(read_ - 1);
            frames_.push_back({true, 0, ""});
            mark_ = read_;
            return json_sax_dom_parser::start_array(elements);
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
            for (const auto& level : frames_) path += "/" + (level.array ? std::to_string(level.index) : level.key);
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

    void index(const nlohmann::json& node, const std::string& path, std::size_t depth = 0) {
        if (auto it = starts_.find(path); it != starts_.end()) by_address_[&node] = it->second;
        if (depth >= max_recorded_depth) return;
        if (node.is_object())
            for (const auto& [member_name, child] : node.items()) index(child, path + "/" + member_name, depth + 1);
        if (node.is_array())
            for (std::size_t i = 0; i < node.size(); ++i) index(node[i], path + "/" + std::to_string(i), depth + 1);
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
