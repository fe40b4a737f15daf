#pragma once
// The files a run leaves behind, drawn with cairo: frames as PNGs and the PSNR curve as a plot.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace ember::neural_renderer {

// RGBA8 pixels, row by row from the top, as a PNG (alpha dropped).
void write_rgba_png(const std::filesystem::path& path, const std::vector<uint8_t>& rgba, uint32_t width,
                    uint32_t height);

// PSNR in dB against the step (1-based) as a line plot.
void plot_psnr_png(const std::filesystem::path& path, const std::vector<double>& psnr);

}  // namespace ember::neural_renderer
