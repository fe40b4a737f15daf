#pragma once
// An optimizer's profiler regions (runtime/record_function.h) under PyTorch's names:
// "Optimizer.step#Adam.step", "Optimizer.zero_grad#Adam.zero_grad".
#include <string>

namespace ember::optim {

class Optimizer;

// The region's name for `method` ("step", "zero_grad") of `optimizer`'s class; computed only while the
// profiler records, since demangling the class name costs more than the step's host work.
std::string profiler_region_name(const Optimizer& optimizer, const char* method);

}  // namespace ember::optim
