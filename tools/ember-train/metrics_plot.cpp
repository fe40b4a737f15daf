#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "runtime/error.h"
#include "tools/ember-train/metrics.h"

namespace ember::train {

namespace {

constexpr int kWidth = 800, kHeight = 600, kMargin = 60;

struct Panel {
  double top, bottom;  // pixel rows of the plot area
};

struct Series {
  std::function<double(const EpochMetrics&)> value;
  double red, green, blue;
  const char* label;
};

void draw_text(cairo_t* cr, double x, double y, const std::string& text) {
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, text.c_str());
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// Axes with the y range's ends labelled, and each series as a line with dots over the epochs.
void draw_panel(cairo_t* cr, const Panel& panel, const std::vector<EpochMetrics>& rows, const std::vector<Series>& series,
                const std::string& y_label) {
  double low = INFINITY, high = -INFINITY;
  for (const Series& s : series) {
    for (const EpochMetrics& r : rows) {
      const double v = s.value(r);
      if (!std::isfinite(v)) continue;
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  if (!std::isfinite(low)) low = 0, high = 1;
  if (high - low < 1e-12) low -= 0.5, high += 0.5;
  const double left = kMargin, right = kWidth - kMargin / 2.0;
  const int first = rows.front().epoch, last = rows.back().epoch;
  auto x_of = [&](int epoch) { return last == first ? (left + right) / 2 : left + (right - left) * (epoch - first) / (last - first); };
  auto y_of = [&](double v) { return panel.bottom - (panel.bottom - panel.top) * (v - low) / (high - low); };

  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left, panel.top, right - left, panel.bottom - panel.top);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 12);
  draw_text(cr, 4, panel.top + 12, number_text(high));
  draw_text(cr, 4, panel.bottom, number_text(low));
  draw_text(cr, 4, (panel.top + panel.bottom) / 2, y_label);
  for (const int epoch : {first, last}) draw_text(cr, x_of(epoch) - 4, panel.bottom + 16, std::to_string(epoch));

  double legend_y = panel.top + 16;
  for (const Series& s : series) {
    cairo_set_source_rgb(cr, s.red, s.green, s.blue);
    cairo_set_line_width(cr, 2);
    bool started = false;
    for (const EpochMetrics& r : rows) {
      const double v = s.value(r);
      if (!std::isfinite(v)) continue;
      if (started) cairo_line_to(cr, x_of(r.epoch), y_of(v));
      else cairo_move_to(cr, x_of(r.epoch), y_of(v));
      started = true;
    }
    cairo_stroke(cr);
    for (const EpochMetrics& r : rows) {
      if (!std::isfinite(s.value(r))) continue;
      cairo_arc(cr, x_of(r.epoch), y_of(s.value(r)), 3, 0, 2 * M_PI);
      cairo_fill(cr);
    }
    draw_text(cr, right - 150, legend_y, s.label);
    legend_y += 16;
  }
}

}  // namespace

void plot_metrics_png(const std::filesystem::path& path, const std::vector<EpochMetrics>& rows, const std::string& title) {
  if (rows.empty()) return;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, kWidth, kHeight);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 16);
  draw_text(cr, kMargin, 24, title);
  const double middle = kHeight / 2.0;
  draw_panel(cr, {40, middle - 20}, rows,
             {{[](const EpochMetrics& r) { return r.train_loss; }, 0.8, 0.2, 0.1, "training loss"},
              {[](const EpochMetrics& r) { return r.test_loss; }, 0.1, 0.3, 0.8, "test loss"}},
             "loss");
  draw_panel(cr, {middle + 20, kHeight - 40.0}, rows,
             {{[](const EpochMetrics& r) { return 100 * r.test_accuracy; }, 0.1, 0.6, 0.2, "test accuracy %"}}, "acc %");
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 12);
  draw_text(cr, kWidth / 2.0 - 20, kHeight - 8, "epoch");
  cairo_destroy(cr);
  const std::string temporary = path.string() + ".tmp";
  const cairo_status_t status = cairo_surface_write_to_png(surface, temporary.c_str());
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) throw Error("cannot write " + path.string() + ": " + cairo_status_to_string(status));
  std::filesystem::rename(temporary, path);
}

}  // namespace ember::train
