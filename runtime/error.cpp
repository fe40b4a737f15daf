#include "runtime/error.h"

#include <cstdio>
#include <sstream>

namespace ember {

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
  }
  return text;
}

namespace {

std::string out_of_memory_message(const std::string& device_name, uint64_t requested,
                                  uint64_t allocated, uint64_t reserved, uint64_t total,
                                  const std::string& detail) {
  std::ostringstream message;
  message << "out of memory on " << device_name << ": tried to allocate " << format_bytes(requested)
          << "; " << format_bytes(allocated) << " already allocated by tensors, "
          << format_bytes(reserved) << " reserved by ember in total, device total "
          << format_bytes(total);
  if (!detail.empty()) message << " (" << detail << ")";
  return message.str();
}

}  // namespace

OutOfMemoryError::OutOfMemoryError(const std::string& device_name, uint64_t requested,
                                   uint64_t allocated, uint64_t reserved, uint64_t total,
                                   const std::string& detail)
    : Error(out_of_memory_message(device_name, requested, allocated, reserved, total, detail)),
      requested_(requested) {}

}  // namespace ember
