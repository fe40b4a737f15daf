#pragma once
// The pipelines of one launch plan whose launches differ in two ways that only each launch's windows can
// decide, each pipeline looked up at the first launch that takes it: texel reads (the shader's *_texel
// variant) and one boolean specialization constant, such as a kernel's word stores.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/vulkan/pipelines.h"

namespace ember::vulkan {

class VariantPipelines {
 public:
  // `specialization` holds the plan's constants, which stop short of `flag_constant`; the flag's
  // pipelines fill the ids in between with 0.
  VariantPipelines(Pipelines& pipelines, std::string shader, std::vector<uint32_t> specialization,
                   uint32_t flag_constant);
  const Pipeline& get(bool texels, bool flag);

 private:
  Pipelines& pipelines_;
  std::string shader_;
  std::vector<uint32_t> specialization_;
  uint32_t flag_constant_;
  const Pipeline* made_[2][2] = {};
};

}  // namespace ember::vulkan
