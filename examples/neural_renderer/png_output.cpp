#include "examples/neural_renderer/png_output.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace ember::neural_renderer {

namespace {

// Writes next to `path` first, so that a reader never sees half a PNG.
void write_surface(cairo_surface_t* surface, const std::filesystem::path& path) {
  const std::string temporary = path.string() + ".tmp";
  const cairo_status_t status = cairo_surface_write_to_png(surface, temporary.c_str());
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error("cannot write " + path.string() + ": " + cairo_status_to_string(status));
  }
  std::filesystem::rename(temporary, path);
}

void draw_text(cairo_t* cr, double x, double y, const std::string& text) {
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, text.c_str());
}

}  // namespace

void write_rgba_png(const std::filesystem::path& path, const std::vector<uint8_t>& rgba, uint32_t width,
                    uint32_t height) {
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width),
                                                        static_cast<int>(height));
  cairo_surface_flush(surface);
  unsigned char* rows = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  // cairo's RGB24 is one native-endian 32-bit word per pixel, 0x00RRGGBB.
  for (uint32_t y = 0; y < height; ++y) {
    auto* row = reinterpret_cast<uint32_t*>(rows + static_cast<size_t>(y) * stride);
    for (uint32_t x = 0; x < width; ++x) {
      const uint8_t* texel = &rgba[(static_cast<size_t>(y) * width + x) * 4];
      row[x] = (uint32_t{texel[0]} << 16) | (uint32_t{texel[1]} << 8) | uint32_t{texel[2]};
    }
  }
  cairo_surface_mark_dirty(surface);
  write_surface(surface, path);
}

void plot_psnr_png(const std::filesystem::path& path, const std::vector<double>& psnr) {
  constexpr int kWidth = 800, kHeight = 500;
  constexpr double left = 70, right = kWidth - 30, top = 50, bottom = kHeight - 50;
  double low = INFINITY, high = -INFINITY;
  for (const double v : psnr) {
    if (!std::isfinite(v)) continue;
    low = std::min(low, v);
    high = std::max(high, v);
  }
  if (!std::isfinite(low)) low = 0, high = 1;
  // Whole 5 dB steps, so that the gridlines fall on round numbers.
  low = 5 * std::floor(low / 5);
  high = std::max(low + 5, 5 * std::ceil(high / 5));
  const double last_step = static_cast<double>(std::max<size_t>(psnr.size(), 2));
  auto x_of = [&](double step) { return left + (right - left) * (step - 1) / (last_step - 1); };
  auto y_of = [&](double v) { return bottom - (bottom - top) * (v - low) / (high - low); };

  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, kWidth, kHeight);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_font_size(cr, 12);
  cairo_set_line_width(cr, 1);
  for (double v = low; v <= high + 1e-9; v += 5) {
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    cairo_move_to(cr, left, y_of(v));
    cairo_line_to(cr, right, y_of(v));
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_text(cr, left - 40, y_of(v) + 4, std::to_string(static_cast<int>(v)) + " dB");
  }
  cairo_rectangle(cr, left, top, right - left, bottom - top);
  cairo_stroke(cr);
  draw_text(cr, left - 4, bottom + 18, "1");
  draw_text(cr, right - 20, bottom + 18, std::to_string(psnr.size()));
  draw_text(cr, (left + right) / 2 - 15, bottom + 34, "step");
  cairo_set_font_size(cr, 16);
  draw_text(cr, left, 30, "PSNR of the prediction against the target");

  cairo_set_source_rgb(cr, 0.8, 0.2, 0.1);
  cairo_set_line_width(cr, 1.5);
  bool drawing = false;
  for (size_t i = 0; i < psnr.size(); ++i) {
    if (!std::isfinite(psnr[i])) {
      drawing = false;
      continue;
    }
    const double x = x_of(static_cast<double>(i + 1)), y = y_of(psnr[i]);
    if (drawing) cairo_line_to(cr, x, y);
    else cairo_move_to(cr, x, y);
    drawing = true;
  }
  cairo_stroke(cr);
  cairo_destroy(cr);
  write_surface(surface, path);
}

}  // namespace ember::neural_renderer
