#pragma once
// OrderedDict: the insertion-ordered map LibTorch returns from named_parameters(), state_dict() and the
// containers. Iteration yields items with key() and value(); lookups by key are hashed.
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/error.h"

namespace ember {

template <class Key, class Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return pair_.second; }
    const Value& operator*() const { return pair_.second; }
    Value* operator->() { return &pair_.second; }
    const Value* operator->() const { return &pair_.second; }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  // `key_description` names the keys in errors: "Parameter 'weight' already defined".
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) {
    for (const Item& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const { return key_description_; }
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  bool empty() const { return items_.empty(); }

  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  Item& front() { return at_position(0); }
  Item& back() { return at_position(items_.size() - 1); }
  const std::vector<Item>& items() const { return items_; }

  Value& insert(Key key, Value value) {
    if (index_.count(key)) throw Error(key_description_ + " '" + key_text(key) + "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  // Inserts or overwrites, keeping an existing key's position.
  Value& insert_or_assign(Key key, Value value) {
    if (Value* existing = find(key)) return *existing = std::move(value);
    return insert(std::move(key), std::move(value));
  }
  void update(const OrderedDict& other) {
    for (const Item& item : other) insert_or_assign(item.key(), item.value());
  }

  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  Value& operator[](const Key& key) { return checked(key); }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict*>(this)->checked(key); }
  Item& operator[](size_t position)
    requires(!std::is_integral_v<Key>)
  {
    return at_position(position);
  }

  // Removes `key` and returns its value.
  Value pop(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) throw Error(key_description_ + " '" + key_text(key) + "' is not defined");
    const size_t position = it->second;
    Value value = std::move(items_[position].value());
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(position));
    index_.erase(it);
    for (auto& entry : index_) {
      if (entry.second > position) --entry.second;
    }
    return value;
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const Item& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    for (const Item& item : items_) out.push_back(item.value());
    return out;
  }

 private:
  static std::string key_text(const Key& key) {
    if constexpr (std::is_convertible_v<Key, std::string>) {
      return key;
    } else {
      return std::to_string(key);
    }
  }
  Value& checked(const Key& key) {
    if (Value* value = find(key)) return *value;
    throw Error(key_description_ + " '" + key_text(key) + "' is not defined");
  }
  Item& at_position(size_t position) {
    if (position >= items_.size()) {
      throw IndexError("index " + std::to_string(position) + " is out of range for an OrderedDict of " +
                       std::to_string(items_.size()) + " items");
    }
    return items_[position];
  }

  std::string key_description_ = "Key";
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
