#include "shaders/common/variant_pipelines.h"

#include <utility>

#include "runtime/error.h"

namespace ember::vulkan {

VariantPipelines::VariantPipelines(Pipelines& pipelines, std::string shader, std::vector<uint32_t> specialization,
                                   uint32_t flag_constant)
    : pipelines_(pipelines), shader_(std::move(shader)), specialization_(std::move(specialization)),
      flag_constant_(flag_constant) {
  if (specialization_.size() > flag_constant_) {
    throw Error(shader_ + ": the launch plan's specialization constants reach its flag's id " +
                std::to_string(flag_constant_));
  }
}

const Pipeline& VariantPipelines::get(bool texels, bool flag) {
  const Pipeline*& made = made_[texels][flag];
  if (made == nullptr) {
    std::vector<uint32_t> specialization = specialization_;
    if (flag) {
      specialization.resize(flag_constant_ + 1, 0);
      specialization.back() = 1;
    }
    made = &pipelines_.get(texels ? shader_ + "_texel" : shader_, specialization);
  }
  return *made;
}

}  // namespace ember::vulkan
